import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const definitionFiles = readdirSync(join(root, 'statemachines'))
  .filter((file) => file.endsWith('.asl.json'))
  .map((file) => `statemachines/${file}`);

// The CLI of the installed asl-validator, as `npx asl-validator` runs it (default options: a
// `${Placeholder}` Resource validates, since CloudFormation substitutes it at deploy time).
const validatorPackage = createRequire(import.meta.url).resolve('asl-validator/package.json');
const validatorCli = join(dirname(validatorPackage), 'dist/bin/asl-validator.js');

describe('Amazon States Language files', () => {
  it('exist', () => {
    expect(definitionFiles.length).toBeGreaterThan(0);
  });

  it.each(definitionFiles)('%s passes asl-validator', (file) => {
    const result = spawnSync(process.execPath, [validatorCli, '--json-path', file], { cwd: root, encoding: 'utf8' });
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
  });

  it('asl-validator rejects a broken definition (so the check above can fail)', () => {
    const broken = JSON.stringify({ StartAt: 'Missing', States: { Only: { Type: 'Pass', End: true } } });
    const result = spawnSync(process.execPath, [validatorCli, '--json-definition', broken], { encoding: 'utf8' });
    expect(result.status).not.toBe(0);
  });
});
