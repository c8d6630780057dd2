import type { CfnResource } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { RuntimeContract } from '../../functions/runtime/contracts.js';

/** The template metadata key that names the deployed unit a resource runs (its run-time contract's unit). */
export const UNIT_METADATA = 'MediaScanner::Unit';

/**
 * Names the unit in the resource's template metadata: CloudFormation ignores it, and the infra tests
 * find each unit's function or task definition by it to hold its settings to the contract (tags
 * cannot carry a route key's braces).
 */
export function markUnit(construct: IConstruct, contract: RuntimeContract): void {
  (construct.node.defaultChild as CfnResource).addMetadata(UNIT_METADATA, contract.unit);
}
