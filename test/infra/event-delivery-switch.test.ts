/**
 * The deployment's event-delivery switch (SPEC Events: optional per deployment): `-c
 * eventDeliveryEnabled=false` reaches every function as EVENT_DELIVERY_ENABLED=false, so the
 * routes refuse endpoint creation and the delivery side sends nothing. Construction only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { cdkJsonContext } from '../../infra/deployment-context.js';
import { MediaScannerStack } from '../../infra/stack.js';

const outdir = mkdtempSync(join(tmpdir(), 'media-scanner-cdk-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** EVENT_DELIVERY_ENABLED of each of the stack's own functions (those given the service environment). */
function switchOf(context: Record<string, unknown>): (string | undefined)[] {
  const stack = new MediaScannerStack(new App({ outdir, context: { ...cdkJsonContext(), [BUNDLING_STACKS]: [], ...context } }), 'MediaScanner');
  return stack.node
    .findAll()
    .filter((construct): construct is CfnFunction => construct instanceof CfnFunction)
    .map((fn) => stack.resolve(fn.environment) as { variables?: Record<string, unknown> } | undefined)
    .filter((environment) => environment?.variables?.TABLE_NAME !== undefined)
    .map((environment) => environment?.variables?.EVENT_DELIVERY_ENABLED as string | undefined);
}

describe('eventDeliveryEnabled context', () => {
  it('is on by default: no function is told otherwise', () => {
    const switches = switchOf({});
    expect(switches.length).toBeGreaterThan(10);
    expect(new Set(switches)).toEqual(new Set([undefined]));
  });

  it('false reaches every function of the service as EVENT_DELIVERY_ENABLED=false', () => {
    for (const value of ['false', false]) expect(new Set(switchOf({ eventDeliveryEnabled: value }))).toEqual(new Set(['false']));
  });
});
