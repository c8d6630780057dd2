import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { AnyRouteDefinition } from '../../functions/routes.js';

/**
 * Whether each field of a route-table entry decides its function's IAM grants. Every field is named
 * (`satisfies` fails to compile otherwise), so a field added to RouteDefinition must be classed here
 * before it builds: routes that differ in a granting field never share a role.
 */
const decidesGrants = {
  method: false,
  path: false,
  handler: false,
  idempotency: false,
  table: true,
  bucket: true,
  ffprobe: false,
  events: true,
  workflows: true,
  cursors: true,
  maxBodyBytes: false,
  wakesWorkflows: true,
  outbound: false,
  uploads: false,
  wakesWebhookSender: true,
  resolvesProviderPages: true,
  essential: false,
} as const satisfies Record<keyof AnyRouteDefinition, boolean>;

const pascal = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * The construct id of a route's grant set: its granting fields with their values, in the order above
 * (`table: 'read', cursors: true` -> `TableReadCursors`). Absent and false say the same: no grant.
 */
export function grantSetId(route: AnyRouteDefinition): string {
  return Object.entries(decidesGrants)
    .filter(([, grants]) => grants)
    .flatMap(([field]) => {
      // Granting fields hold an access level, a switch or a list of workflows.
      const value = route[field as keyof AnyRouteDefinition] as string | boolean | readonly string[] | undefined;
      if (value === undefined || value === false) return [];
      if (value === true) return [pascal(field)];
      const values = typeof value === 'string' ? [value] : [...value].sort();
      return values.length ? [`${pascal(field)}${values.map(pascal).join('')}`] : [];
    })
    .join('');
}

/**
 * The roles of the route functions: one per distinct grant set of the route table, shared by every
 * route whose entry declares that set (most read-only routes hold table read alone). A role and its
 * policy per route spent two of CloudFormation's 500 resources a stack may hold on each route; a role
 * shared only among identical grant sets gives no route more than its own role did. Each route's
 * function still grants through its bind methods; a second route's identical statements add nothing
 * (CDK keeps one copy of a repeated statement). The set comes from the table, so no route names a role.
 */
export class RouteRoles extends Construct {
  /** The role for `route`'s grant set, made by the first route that has it. */
  public roleFor(route: AnyRouteDefinition): Role {
    const id = grantSetId(route);
    return (this.node.tryFindChild(id) as Role | undefined) ?? new Role(this, id, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  }
}
