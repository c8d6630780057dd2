/**
 * Request limits in the template (issue 26 item 5): reserved concurrency for the authorizer and the
 * essential routes (the route table's `essential`), from context or the defaults; the authorizer's
 * one write grant (its account's request bucket); and no authorizer result cache, since the bucket
 * is charged by the authorizer on every request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { routeKey, routes, type RouteDefinition } from '../../functions/routes.js';
import { cdkJsonContext, concurrencyReserves } from '../../infra/deployment-context.js';
import { MediaScannerStack } from '../../infra/stack.js';
import { TemplateQueries } from './template.js';

const outdir = mkdtempSync(join(tmpdir(), 'media-scanner-cdk-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The stack as constructed (functions are not bundled: the template is all these tests read). */
function templateWith(context: Record<string, unknown> = {}): TemplateQueries {
  const stack = new MediaScannerStack(new App({ outdir, context: { ...cdkJsonContext(), [BUNDLING_STACKS]: [], ...context } }), 'MediaScanner');
  return new TemplateQueries(Template.fromStack(stack));
}

const authorizerId = (q: TemplateQueries): string => {
  const [id, ...others] = Object.keys(q.find('AWS::Lambda::Function', { Description: 'Resolves the API key to an account for every request' }));
  expect(others).toEqual([]);
  return id!;
};
const reservedOf = (q: TemplateQueries, functionId: string): unknown => q.resource(functionId).Properties.ReservedConcurrentExecutions;
const essential = (routes as readonly RouteDefinition[]).filter((route) => route.essential);

describe('reserved concurrency', () => {
  const q = templateWith();

  it('keeps the defaults for the authorizer and each essential route, and none for the rest', () => {
    expect(essential.map(routeKey)).toEqual([
      'GET /v1/account',
      'GET /v1/runs/{run_id}',
      'GET /v1/analyses/{analysis_id}',
      'GET /v1/analyses/{analysis_id}/progress',
    ]);
    expect(reservedOf(q, authorizerId(q))).toBe(concurrencyReserves.authorizer.fallback);
    for (const route of routes as readonly RouteDefinition[]) {
      expect(reservedOf(q, q.functionBehindRoute(routeKey(route))), routeKey(route)).toBe(
        route.essential ? concurrencyReserves.essentialRoute.fallback : undefined,
      );
    }
  });

  it('leaves the regional pool of 1,000 its 100 unreserved, with room to spare', () => {
    const reserved = q.functionIds().reduce((sum, id) => sum + Number(reservedOf(q, id) ?? 0), 0);
    expect(reserved).toBe(concurrencyReserves.authorizer.fallback + essential.length * concurrencyReserves.essentialRoute.fallback);
    expect(reserved).toBeLessThanOrEqual(900);
  });

  it('takes both from context, and fails the synthesis on a bad value naming the key', () => {
    const configured = templateWith({ authorizerReservedConcurrency: 7, routeReservedConcurrency: '3' });
    expect(reservedOf(configured, authorizerId(configured))).toBe(7);
    expect(reservedOf(configured, configured.functionBehindRoute('GET /v1/runs/{run_id}'))).toBe(3);
    expect(() => templateWith({ routeReservedConcurrency: 2.5 })).toThrow('Invalid CDK context: routeReservedConcurrency must be a positive integer, got 2.5');
  });
});

describe('the authorizer takes the request token', () => {
  const q = templateWith();

  it("may update items of the service table (its accounts' request buckets), and write nothing else", () => {
    const actions = q.actionsOf(authorizerId(q));
    expect(actions).toContain('dynamodb:UpdateItem');
    for (const write of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) expect(actions).not.toContain(write);
    const tableId = Object.keys(q.find('AWS::DynamoDB::Table'))[0]!;
    expect(q.resourcesGranted(q.statementsOf(authorizerId(q)), 'dynamodb:UpdateItem')).toContainEqual({ 'Fn::GetAtt': [tableId, 'Arn'] });
  });

  it('runs for every request: API Gateway caches no authorizer result', () => {
    const authorizers = Object.values(q.find('AWS::ApiGatewayV2::Authorizer'));
    expect(authorizers).toHaveLength(1);
    expect(authorizers[0]!.Properties.AuthorizerResultTtlInSeconds).toBe(0);
    expect(authorizers[0]!.Properties.IdentitySource).toBeUndefined();
  });
});
