import { config } from '../config.js';
import { dynamoRenderStore } from '../adapters/table/render-store.js';
import type { RenderDeps } from '../domain/renders/create.js';
import { lazy } from '../shared/memo.js';
import { hostWorkflows } from './host.js';
import { idClaims, runs } from './runs.js';
import { table } from './table.js';

export const renders = lazy(() => dynamoRenderStore(table()));

/** POST /v1/renders: captions need a transcriber (none by default; `npm start` runs moonshine). */
export const renderSubmission = lazy(
  (): RenderDeps => ({ renders: renders(), runs: runs(), workflows: hostWorkflows, claims: idClaims(), captionsAvailable: config().TRANSCRIBER !== 'none' }),
);

/** SettleRender and the ended-execution settler only read and write renders. */
export const renderSettlement = lazy(() => ({ renders: renders() }));
