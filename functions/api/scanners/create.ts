import { requireAccount } from '../../domain/accounts.js';
import { createScanner } from '../../domain/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { presentScanner } from '../../http/presenters.js';
import { scannerCreateSchema } from '../../schemas/scanner.js';
import { scannerDeps } from './deps.js';

export const handler = httpHandler('api/scanners/create', { body: scannerCreateSchema }, async ({ accountId, body }, services) => {
  const account = await requireAccount(services.accounts, accountId);
  return { status: 201, body: presentScanner(await createScanner(scannerDeps(services), account, body)) };
});
