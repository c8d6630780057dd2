/**
 * The permission check: every AWS call the local host recorded for a deployed unit
 * (functions/local/aws-calls/recorder.ts) against that unit's role in the synthesized template.
 *
 * - Units -> roles through the route and workflow tables (the function behind each route key,
 *   the authorizer's function, the functions and task definitions each workflow's state machine
 *   substitutes for its placeholders, the onExecutionEnded rule's target): no logical id is named.
 *   So are the roles AWS services assume (vocabulary.ts `principals`): each workflow's state
 *   machine role, each task definition's execution role, and the role the webhook sender gives
 *   EventBridge Scheduler (WEBHOOK_SCHEDULER_ROLE_ARN).
 * - A role's statements: the AWS::IAM::Policy and AWS::IAM::ManagedPolicy resources attached to
 *   it and its inline Policies. Managed policy ARNs and permissions boundaries are not evaluated
 *   (none exist today; they are reported if they appear). Resource-based policies (bucket, key,
 *   secret policies) are not evaluated either.
 * - Resources are resolved (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select/Split, pseudo
 *   parameters) into the canonical form of functions/local/aws-calls/vocabulary.ts: the service's
 *   resources by symbol, found through the configuration variables the template sets on the
 *   functions (TABLE_NAME: {Ref: Table...} makes that table `<Table>`) and, for state machines,
 *   through the ASL each one deploys.
 * - IAM evaluation: an explicit Deny wins, then any Allow; actions match case-insensitively with
 *   `*` and `?`, resources case-sensitively; NotAction and NotResource are honoured. Conditions are
 *   evaluated where every key is known (the call's own, e.g. dynamodb:EnclosingOperation, and
 *   aws:SecureTransport); an Allow whose condition cannot be evaluated grants nothing, a Deny whose
 *   condition cannot be evaluated applies, and both are said in the result.
 * - A call the IAM mapping does not know (resource `<unmapped>`) is a violation whatever the role
 *   grants: its resources are unknown, so no grant can be shown to cover it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { UNMAPPED } from '../../functions/local/aws-calls/iam-mapping.js';
import type { RecordedCall } from '../../functions/local/aws-calls/recorder.js';
import {
  ACCOUNT,
  arns,
  CONTAINER_CLUSTER,
  CONTAINER_IMAGE_REPOSITORY,
  PARTITION,
  principals,
  REGION,
  resourceVariables,
  stateMachineVariable,
  symbol,
  unitSymbols,
} from '../../functions/local/aws-calls/vocabulary.js';
import { units } from '../../functions/runtime/contracts.js';
import { consoleRoutes, routeKey, routes, type RouteDefinition } from '../../functions/routes.js';
import { containerPlacement, workflows, type WorkflowDefinition } from '../../functions/workflows/registry.js';
import { settleFunctionOf, stateMachineDeploying, TemplateQueries, type Resource } from '../infra/template.js';
import { repoRoot } from './processes.js';

// ---------------------------------------------------------------- recording

/** The recording's calls, deduplicated (several processes append to one file). */
export function readRecording(file: string): RecordedCall[] {
  const lines = new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim()),
  );
  return [...lines].map((line) => JSON.parse(line) as RecordedCall);
}

// ---------------------------------------------------------------- units and roles

export interface UnitRole {
  readonly unit: string;
  /** Logical id of the IAM role the unit runs with. */
  readonly roleId: string;
  /** What runs with it: the function's or task definition's logical id. */
  readonly runner: string;
}

/** A synthesized template as JSON (Template.toJSON()). */
export type TemplateJson = { Resources: Record<string, Resource>; Parameters?: Record<string, unknown> };

const roleOfFunction = (resources: Record<string, Resource>, functionId: string): string => {
  const role = resources[functionId]?.Properties.Role as { 'Fn::GetAtt'?: [string, string] } | undefined;
  const roleId = role?.['Fn::GetAtt']?.[0];
  if (!roleId) throw new Error(`Function ${functionId} has no role of this template`);
  return roleId;
};

/** Every logical id a value refers to with Fn::GetAtt, anywhere inside it. */
function getAttTargets(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(getAttTargets);
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  const own = Array.isArray(record['Fn::GetAtt']) ? [String((record['Fn::GetAtt'] as unknown[])[0])] : [];
  return [...own, ...Object.values(record).flatMap(getAttTargets)];
}

/** The one logical id a value refers to with Fn::GetAtt or Ref (a role's ARN, a queue's URL), if any. */
const referencedId = (value: unknown): string | undefined => getAttTargets(value)[0] ?? ((value as { Ref?: unknown } | null)?.Ref as string | undefined);

/** A task definition's resources by what they are to its unit (unitSymbols). */
function taskDefinitionParts(taskDefinition: Resource): { taskRole?: string; executionRole?: string; logGroup?: string; image?: unknown } {
  const [container] =
    (taskDefinition.Properties.ContainerDefinitions as { Image?: unknown; LogConfiguration?: { Options?: Record<string, unknown> } }[] | undefined) ?? [];
  const parts = {
    taskRole: referencedId(taskDefinition.Properties.TaskRoleArn),
    executionRole: referencedId(taskDefinition.Properties.ExecutionRoleArn),
    logGroup: referencedId(container?.LogConfiguration?.Options?.['awslogs-group']),
    image: container?.Image,
  };
  return Object.fromEntries(Object.entries(parts).filter(([, value]) => value !== undefined));
}

/** Logical ids of what the webhook sender hands EventBridge Scheduler: the role, and the group of its schedules. */
function schedulerOf(q: TemplateQueries): { roleId: string; groupId: string | undefined } | undefined {
  for (const functionId of q.functionsOnQueues()) {
    const environment = q.environmentOf(functionId);
    const roleId = referencedId(environment.WEBHOOK_SCHEDULER_ROLE_ARN);
    if (roleId) return { roleId, groupId: referencedId(environment.WEBHOOK_SCHEDULE_GROUP) };
  }
  return undefined;
}

/** Each deployed unit's role, and each service principal's, found through the route and workflow tables. */
export function unitRoles(template: TemplateJson): Map<string, UnitRole> {
  const q = new TemplateQueries(Template.fromJSON(template));
  const resources = template.Resources;
  const roles = new Map<string, UnitRole>();
  const add = (unit: string, roleId: string | undefined, runner: string) => {
    if (roleId) roles.set(unit, { unit, roleId, runner });
  };
  const addFunction = (unit: string, functionId: string) => add(unit, roleOfFunction(resources, functionId), functionId);

  for (const route of routes as readonly RouteDefinition[]) addFunction(units.route(routeKey(route)), q.functionBehindRoute(routeKey(route)));
  addFunction(units.fallback, q.functionBehindRoute('$default'));
  // The console's routes are wired in a nested stack (ConsoleRoutes, infra/stack.ts); their functions, in this
  // template, name their unit. (A console twin runs its /v1 route's function, so its calls are that route's.)
  for (const route of consoleRoutes) {
    const unit = units.route(routeKey(route));
    const functionId = q.functionOfUnit(unit);
    if (functionId) addFunction(unit, functionId);
  }
  const authorizers = Object.values(q.find('AWS::ApiGatewayV2::Authorizer'));
  for (const authorizer of authorizers) {
    const [functionId] = getAttTargets(authorizer.Properties.AuthorizerUri).filter((id) => resources[id]?.Type === 'AWS::Lambda::Function');
    if (functionId) addFunction(units.authorizer, functionId);
  }
  for (const [name, workflow] of Object.entries(workflows as Readonly<Record<string, WorkflowDefinition>>)) {
    const deployed = stateMachineDeploying(q, readFileSync(join(repoRoot, workflow.definitionFile), 'utf8'));
    for (const placeholder of Object.keys(workflow.tasks)) {
      const functionId = deployed.taskFunctionIds[placeholder];
      if (functionId) addFunction(units.task(name, placeholder), functionId);
    }
    for (const placeholder of Object.keys(workflow.containerTasks ?? {})) {
      const taskDefinitionId = deployed.taskDefinitionIds[placeholder];
      const taskDefinition = taskDefinitionId && resources[taskDefinitionId];
      if (!taskDefinition) continue;
      const unit = units.container(name, placeholder);
      const { taskRole, executionRole } = taskDefinitionParts(taskDefinition);
      add(unit, taskRole, taskDefinitionId);
      add(principals.ecsExecution(unit), executionRole, taskDefinitionId);
    }
    add(principals.stateMachine(name), referencedId(deployed.resource.Properties.RoleArn), deployed.id);
    if (workflow.onExecutionEnded) addFunction(units.executionEnded(name), settleFunctionOf(q, deployed.id));
  }
  for (const functionId of q.functionsOnTableStream()) addFunction(units.outboxRelay, functionId);
  for (const functionId of q.functionsOnQueues()) addFunction(units.webhookSender, functionId);
  const scheduler = schedulerOf(q);
  if (scheduler) add(principals.scheduler, scheduler.roleId, scheduler.groupId ?? scheduler.roleId);
  return roles;
}

// ---------------------------------------------------------------- resolving template values

/** The names the check gives the template's resources: the vocabulary's symbols, or `<LogicalId>`. */
export class TemplateNames {
  /** Logical id -> symbol (`<Table>`, `<analysis>`, `<task:analysis/PlanChunksFunction>`). */
  readonly symbols = new Map<string, string>();
  /**
   * Physical names inside ARNs built from them -> symbols: state machine names (the task grants),
   * task definition families (RunTask grants), the image's repository (ECR pull grants).
   */
  readonly physicalNames: { readonly before: string; readonly name: string; readonly symbol: string }[] = [];

  constructor(readonly template: TemplateJson) {
    const resources = template.Resources;
    const variables = new Map<string, string>([
      ...Object.entries(resourceVariables).map(([variable, name]): [string, string] => [variable, symbol(name)]),
      ...Object.keys(workflows).map((workflow): [string, string] => [stateMachineVariable(workflow), symbol(workflow)]),
    ]);
    const bindings: [string, unknown][] = [];
    for (const resource of Object.values(resources)) {
      if (resource.Type === 'AWS::Lambda::Function') {
        const environment = (resource.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
        bindings.push(...Object.entries(environment));
      }
      if (resource.Type === 'AWS::ECS::TaskDefinition') {
        for (const container of (resource.Properties.ContainerDefinitions as { Environment?: { Name: string; Value: unknown }[] }[] | undefined) ?? []) {
          bindings.push(...(container.Environment ?? []).map((variable): [string, unknown] => [variable.Name, variable.Value]));
        }
      }
    }
    for (const [variable, value] of bindings) {
      const name = variables.get(variable);
      const id = referencedId(value);
      if (name && id && resources[id]) this.symbols.set(id, name);
    }
    // State machines by the ASL each deploys (robust to the variable being a built ARN), and what
    // each names: its task functions, task definitions and cluster, by the units they are.
    const q = new TemplateQueries(Template.fromJSON(template));
    const unbuilt = new TemplateResolver(this, false);
    for (const [name, workflow] of Object.entries(workflows as Readonly<Record<string, WorkflowDefinition>>)) {
      const deployed = stateMachineDeploying(q, readFileSync(join(repoRoot, workflow.definitionFile), 'utf8'));
      this.symbols.set(deployed.id, symbol(name));
      const physical = deployed.resource.Properties.StateMachineName;
      if (physical !== undefined) {
        const stateMachine = unbuilt.resolve(physical);
        this.physicalNames.push(
          { before: ':stateMachine:', name: stateMachine, symbol: symbol(name) },
          { before: ':execution:', name: stateMachine, symbol: symbol(name) },
        );
      }
      for (const [placeholder, functionId] of Object.entries(deployed.taskFunctionIds))
        this.symbols.set(functionId, unitSymbols.runner(units.task(name, placeholder)));
      for (const [placeholder, taskDefinitionId] of Object.entries(deployed.taskDefinitionIds))
        this.nameTaskDefinition(units.container(name, placeholder), taskDefinitionId, unbuilt);
      const cluster = referencedId((deployed.resource.Properties.DefinitionSubstitutions as Record<string, unknown> | undefined)?.[containerPlacement.cluster]);
      if (cluster) this.symbols.set(cluster, CONTAINER_CLUSTER);
    }
  }

  private nameTaskDefinition(unit: string, taskDefinitionId: string, unbuilt: TemplateResolver): void {
    const taskDefinition = this.template.Resources[taskDefinitionId]!;
    const parts = taskDefinitionParts(taskDefinition);
    this.symbols.set(taskDefinitionId, unitSymbols.runner(unit));
    const family = taskDefinition.Properties.Family;
    if (typeof family === 'string') this.physicalNames.push({ before: ':task-definition/', name: family, symbol: unitSymbols.runner(unit) });
    if (parts.taskRole) this.symbols.set(parts.taskRole, unitSymbols.taskRole(unit));
    if (parts.executionRole) this.symbols.set(parts.executionRole, unitSymbols.executionRole(unit));
    if (parts.logGroup) this.symbols.set(parts.logGroup, unitSymbols.logGroup(unit));
    // `<account>.dkr.ecr.<region>.<suffix>/<repository>:<tag>`: only an ECR image has a repository to pull from.
    const repository = parts.image === undefined ? undefined : /^[^/]+\.dkr\.ecr\.[^/]+\/([^:@]+)/.exec(unbuilt.resolve(parts.image))?.[1];
    if (repository) this.physicalNames.push({ before: ':repository/', name: repository, symbol: CONTAINER_IMAGE_REPOSITORY });
  }

  nameOf(logicalId: string): string {
    return this.symbols.get(logicalId) ?? `<${logicalId}>`;
  }
}

export class UnresolvableValue extends Error {}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Resolves template values (a statement's Resource) into canonical ARNs. */
export class TemplateResolver {
  constructor(
    private readonly names: TemplateNames,
    private readonly renamePhysicalNames = true,
  ) {}

  private get resources(): Record<string, Resource> {
    return this.names.template.Resources;
  }

  private pseudo(name: string): string | undefined {
    return { 'AWS::Partition': PARTITION, 'AWS::Region': REGION, 'AWS::AccountId': ACCOUNT, 'AWS::URLSuffix': 'amazonaws.com', 'AWS::NoValue': '' }[name];
  }

  private ref(id: string): string {
    const known = this.pseudo(id);
    if (known !== undefined) return known;
    const resource = this.resources[id];
    if (!resource) {
      if (this.names.template.Parameters?.[id]) return `<parameter ${id}>`;
      throw new UnresolvableValue(`Ref to ${id}, which is no resource of the template`);
    }
    const name = this.names.nameOf(id);
    switch (resource.Type) {
      case 'AWS::SecretsManager::Secret':
        return arns.secret(name);
      case 'AWS::StepFunctions::StateMachine':
        return arns.stateMachine(name);
      case 'AWS::ECS::TaskDefinition':
        return arns.taskDefinition(name);
      default:
        // Tables, buckets, event buses, functions, roles, log groups: the name.
        return name;
    }
  }

  private getAtt(id: string, attribute: string): string {
    const resource = this.resources[id];
    if (!resource) throw new UnresolvableValue(`Fn::GetAtt of ${id}, which is no resource of the template`);
    const name = this.names.nameOf(id);
    if (attribute !== 'Arn') return `<${id}.${attribute}>`;
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table':
        return arns.table(name);
      case 'AWS::S3::Bucket':
        return arns.bucket(name);
      case 'AWS::Events::EventBus':
        return arns.eventBus(name);
      case 'AWS::StepFunctions::StateMachine':
        return arns.stateMachine(name);
      case 'AWS::Lambda::Function':
        return arns.function(name);
      case 'AWS::IAM::Role':
        return arns.role(name);
      case 'AWS::Logs::LogGroup':
        return arns.logGroup(name);
      case 'AWS::SQS::Queue':
        return arns.queue(name);
      case 'AWS::ECS::Cluster':
        return arns.cluster(name);
      default:
        return `<${id}.Arn>`;
    }
  }

  private sub(template: string, variables: Record<string, unknown>): string {
    return template.replace(/\$\{([^}!]+)\}/g, (_, reference: string) => {
      if (reference in variables) return this.resolve(variables[reference]);
      const [id, attribute] = reference.split('.');
      return attribute ? this.getAtt(id!, attribute) : this.ref(id!);
    });
  }

  private list(value: unknown): string[] {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    const split = (value as { 'Fn::Split'?: [string, unknown] } | null)?.['Fn::Split'];
    if (split) return this.resolve(split[1]).split(split[0]);
    throw new UnresolvableValue(`not a list: ${JSON.stringify(value)}`);
  }

  /** A template value as a canonical string; throws UnresolvableValue for what cannot be known before deployment. */
  resolve(value: unknown): string {
    if (typeof value === 'string') return this.canonical(value);
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (typeof value !== 'object' || value === null) throw new UnresolvableValue(`unexpected value ${JSON.stringify(value)}`);
    const record = value as Record<string, unknown>;
    const [intrinsic, argument] = Object.entries(record)[0] ?? [];
    switch (intrinsic) {
      case 'Ref':
        return this.canonical(this.ref(String(argument)));
      case 'Fn::GetAtt': {
        const [id, attribute] = Array.isArray(argument) ? (argument as string[]) : String(argument).split('.');
        return this.canonical(this.getAtt(id!, attribute!));
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown];
        return this.canonical(this.list(parts).join(separator));
      }
      case 'Fn::Sub': {
        const [text, variables] = Array.isArray(argument) ? (argument as [string, Record<string, unknown>]) : [String(argument), {}];
        return this.canonical(this.sub(text, variables));
      }
      case 'Fn::Select': {
        const [index, list] = argument as [unknown, unknown];
        const item = this.list(list)[Number(this.resolve(index))];
        if (item === undefined) throw new UnresolvableValue(`Fn::Select index out of range: ${JSON.stringify(value)}`);
        return item;
      }
      default:
        throw new UnresolvableValue(`${intrinsic ?? 'value'} cannot be resolved before deployment: ${JSON.stringify(value)}`);
    }
  }

  /** Physical names in a built ARN (`:stateMachine:MediaScanner-analysis`) become their symbols. */
  private canonical(text: string): string {
    if (!this.renamePhysicalNames) return text;
    return this.names.physicalNames.reduce(
      (result, { before, name, symbol: renamed }) =>
        result.replace(new RegExp(`${escapeRegExp(before)}${escapeRegExp(name)}(?=$|:)`, 'g'), `${before}${renamed}`),
      text,
    );
  }
}

// ---------------------------------------------------------------- statements

export interface PolicyStatement {
  readonly Sid?: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Action?: string | string[];
  readonly NotAction?: string | string[];
  readonly Resource?: unknown;
  readonly NotResource?: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

/** A statement with its resources resolved, and where it came from. */
export interface ResolvedStatement {
  readonly effect: 'Allow' | 'Deny';
  readonly actions: readonly string[];
  readonly notActions: readonly string[];
  readonly resources: readonly string[];
  readonly notResources: readonly string[];
  readonly condition?: Record<string, Record<string, unknown>>;
  /** `<policy logical id>#<index>` */
  readonly source: string;
}

const asArray = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** Every statement that applies to a role, with anything that could not be evaluated noted. */
export function statementsOfRole(template: TemplateJson, roleId: string, resolver: TemplateResolver): { statements: ResolvedStatement[]; notes: string[] } {
  const notes: string[] = [];
  const documents: [source: string, statements: PolicyStatement[]][] = [];
  const attached = (roles: unknown) => asArray(roles as unknown[]).some((role) => (role as { Ref?: string } | null)?.Ref === roleId);
  for (const [id, resource] of Object.entries(template.Resources)) {
    if ((resource.Type === 'AWS::IAM::Policy' || resource.Type === 'AWS::IAM::ManagedPolicy') && attached(resource.Properties.Roles)) {
      documents.push([id, asArray((resource.Properties.PolicyDocument as { Statement?: PolicyStatement | PolicyStatement[] }).Statement)]);
    }
  }
  const role = template.Resources[roleId];
  for (const policy of (role?.Properties.Policies as
    | { PolicyName?: string; PolicyDocument: { Statement?: PolicyStatement | PolicyStatement[] } }[]
    | undefined) ?? []) {
    documents.push([`${roleId}/${policy.PolicyName ?? 'inline'}`, asArray(policy.PolicyDocument.Statement)]);
  }
  for (const arn of asArray(role?.Properties.ManagedPolicyArns as unknown[])) notes.push(`managed policy ${JSON.stringify(arn)} on ${roleId} is not evaluated`);
  if (role?.Properties.PermissionsBoundary) notes.push(`the permissions boundary of ${roleId} is not evaluated`);

  const resolveAll = (values: unknown, source: string): string[] =>
    asArray(values as unknown[]).map((value) => {
      try {
        return resolver.resolve(value);
      } catch (error) {
        if (!(error instanceof UnresolvableValue)) throw error;
        notes.push(`${source}: ${error.message} (matches nothing)`);
        return `<unresolved ${JSON.stringify(value)}>`;
      }
    });
  const statements = documents.flatMap(([id, list]) =>
    list.map((statement, index): ResolvedStatement => {
      const source = `${id}#${index}`;
      return {
        effect: statement.Effect,
        actions: asArray(statement.Action),
        notActions: asArray(statement.NotAction),
        resources: resolveAll(statement.Resource, source),
        notResources: resolveAll(statement.NotResource, source),
        ...(statement.Condition ? { condition: statement.Condition } : {}),
        source,
      };
    }),
  );
  return { statements, notes };
}

// ---------------------------------------------------------------- IAM evaluation

const wildcardPattern = (pattern: string, flags: string): RegExp =>
  new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : escapeRegExp(c)))
      .join('')}$`,
    flags,
  );

/** IAM's matching of an action (case-insensitive) or a resource (case-sensitive) against a pattern with `*` and `?`. */
export const matchesAction = (pattern: string, action: string): boolean => wildcardPattern(pattern, 'is').test(action);
export const matchesResource = (pattern: string, resource: string): boolean => wildcardPattern(pattern, 's').test(resource);

/** Condition keys the check knows the value of for every call made by the service on AWS. */
const globalContext: Readonly<Record<string, string>> = { 'aws:SecureTransport': 'true' };

type ConditionResult = 'true' | 'false' | 'unknown';

/** One condition operator against the request context; 'unknown' when a key or operator is not known. */
function evaluateCondition(condition: Record<string, Record<string, unknown>>, context: Readonly<Record<string, string>>): ConditionResult {
  let result: ConditionResult = 'true';
  for (const [rawOperator, entries] of Object.entries(condition)) {
    const setOperator = /^(ForAnyValue|ForAllValues):/.exec(rawOperator)?.[1];
    let operator = rawOperator.replace(/^(ForAnyValue|ForAllValues):/, '');
    const ifExists = operator.endsWith('IfExists');
    operator = operator.replace(/IfExists$/, '');
    for (const [rawKey, expected] of Object.entries(entries)) {
      const key = Object.keys(context).find((k) => k.toLowerCase() === rawKey.toLowerCase());
      const patterns = asArray(expected as unknown[]).map(String);
      if (key === undefined) {
        if (ifExists) continue;
        // Absent from what the check knows: it may or may not be in the request on AWS.
        result = 'unknown';
        continue;
      }
      const actual = context[key]!;
      const test = (pattern: string): boolean | undefined => {
        switch (operator) {
          case 'StringEquals':
          case 'ArnEquals':
            return actual === pattern;
          case 'StringEqualsIgnoreCase':
            return actual.toLowerCase() === pattern.toLowerCase();
          case 'StringLike':
          case 'ArnLike':
            return matchesResource(pattern, actual);
          case 'StringNotEquals':
          case 'ArnNotEquals':
            return actual !== pattern;
          case 'StringNotLike':
          case 'ArnNotLike':
            return !matchesResource(pattern, actual);
          case 'Bool':
            return actual.toLowerCase() === pattern.toLowerCase();
          default:
            return undefined;
        }
      };
      const outcomes = patterns.map(test);
      if (outcomes.some((o) => o === undefined)) {
        result = 'unknown';
        continue;
      }
      const negated = /Not/.test(operator);
      // Single-valued keys: ForAnyValue/ForAllValues read as the plain operator.
      const passed = negated && !setOperator ? outcomes.every(Boolean) : outcomes.some(Boolean);
      if (!passed) return 'false';
    }
  }
  return result;
}

export interface CallToCheck {
  readonly action: string;
  readonly resource: string;
  readonly context?: Readonly<Record<string, string>>;
}

export interface Decision {
  readonly allowed: boolean;
  /** Why not, or which statement allows it. */
  readonly reason: string;
  /** The statements that allow it (for the unused-grant report). */
  readonly allowedBy: readonly ResolvedStatement[];
}

const statementMatches = (statement: ResolvedStatement, call: CallToCheck): boolean => {
  const actionMatches = statement.actions.length
    ? statement.actions.some((pattern) => matchesAction(pattern, call.action))
    : !statement.notActions.some((pattern) => matchesAction(pattern, call.action));
  if (!actionMatches) return false;
  return statement.resources.length
    ? statement.resources.some((pattern) => matchesResource(pattern, call.resource))
    : !statement.notResources.some((pattern) => matchesResource(pattern, call.resource));
};

/** IAM's decision for one call under a role's statements (identity policies of one account). */
export function decide(statements: readonly ResolvedStatement[], call: CallToCheck): Decision {
  const context = { ...globalContext, ...call.context };
  const matching = statements.filter((statement) => statementMatches(statement, call));
  const conditionOf = (statement: ResolvedStatement): ConditionResult => (statement.condition ? evaluateCondition(statement.condition, context) : 'true');
  for (const deny of matching.filter((s) => s.effect === 'Deny')) {
    const applies = conditionOf(deny);
    if (applies === 'true') return { allowed: false, reason: `explicitly denied by ${deny.source}`, allowedBy: [] };
    if (applies === 'unknown')
      return {
        allowed: false,
        reason: `possibly denied by ${deny.source}, whose condition the check cannot evaluate (${JSON.stringify(deny.condition)}): treated as denying`,
        allowedBy: [],
      };
  }
  const allows = matching.filter((s) => s.effect === 'Allow');
  const granting = allows.filter((s) => conditionOf(s) === 'true');
  if (granting.length) return { allowed: true, reason: `allowed by ${granting.map((s) => s.source).join(', ')}`, allowedBy: granting };
  const unknown = allows.filter((s) => conditionOf(s) === 'unknown');
  if (unknown.length) {
    return {
      allowed: false,
      reason: `only ${unknown.map((s) => s.source).join(', ')} would allow it, under a condition the check cannot evaluate (${unknown.map((s) => JSON.stringify(s.condition)).join('; ')}): treated as not granting`,
      allowedBy: [],
    };
  }
  return {
    allowed: false,
    reason: allows.length ? 'its only matching Allow statements have conditions that do not hold' : 'no statement of the role allows it',
    allowedBy: [],
  };
}

// ---------------------------------------------------------------- the check

export interface Violation {
  readonly unit: string;
  readonly action: string;
  readonly resource: string;
  /** The API call(s) that needed it. */
  readonly calls: readonly string[];
  readonly role: string;
  readonly reason: string;
}

export interface UnusedGrant {
  readonly unit: string;
  readonly role: string;
  readonly action: string;
  readonly resource: string;
  readonly statement: string;
}

export interface PermissionReport {
  readonly violations: readonly Violation[];
  readonly unused: readonly UnusedGrant[];
  /** Units of the template with no recorded call at all. */
  readonly unexercised: readonly string[];
  /** Calls recorded outside any deployed unit (the local host itself): not checked. */
  readonly hostCalls: readonly RecordedCall[];
  readonly notes: readonly string[];
  readonly checkedCalls: number;
}

/** Grants the runtime uses, not the code: CloudWatch Logs from the Lambda and ECS log drivers, X-Ray. */
const platformAction = (action: string): boolean => /^(logs|xray):/i.test(action);

/** Checks recorded calls against the roles of a synthesized template. */
export function checkPermissions(template: TemplateJson, calls: readonly RecordedCall[]): PermissionReport {
  const roles = unitRoles(template);
  const names = new TemplateNames(template);
  const resolver = new TemplateResolver(names);
  const notes = new Set<string>();
  const statementsByRole = new Map<string, ResolvedStatement[]>();
  const statementsOf = (roleId: string): ResolvedStatement[] => {
    let statements = statementsByRole.get(roleId);
    if (!statements) {
      const result = statementsOfRole(template, roleId, resolver);
      result.notes.forEach((note) => notes.add(note));
      statements = result.statements;
      statementsByRole.set(roleId, statements);
    }
    return statements;
  };

  const violations = new Map<string, Violation>();
  const used = new Map<string, Set<string>>(); // unit -> "statement|action pattern|resource pattern"
  const hostCalls: RecordedCall[] = [];
  for (const call of calls) {
    if (call.unit === units.host) {
      hostCalls.push(call);
      continue;
    }
    const role = roles.get(call.unit);
    const key = `${call.unit}\n${call.action}\n${call.resource}`;
    const violationOf = (roleName: string, reason: string): Violation => {
      const previous = violations.get(key);
      return {
        unit: call.unit,
        action: call.action,
        resource: call.resource,
        calls: [...new Set([...(previous?.calls ?? []), `${call.call} (${call.via})`])],
        role: roleName,
        reason,
      };
    };
    if (!role) {
      violations.set(key, violationOf('(none)', 'the template has no role for this unit'));
      continue;
    }
    if (call.resource.startsWith(UNMAPPED)) {
      violations.set(key, violationOf(role.roleId, 'functions/local/aws-calls/iam-mapping.ts has no entry for this call, so what it needs is unknown'));
      continue;
    }
    const decision = decide(statementsOf(role.roleId), call);
    if (!decision.allowed) {
      violations.set(key, violationOf(role.roleId, decision.reason));
      continue;
    }
    const usedByUnit = used.get(call.unit) ?? new Set<string>();
    used.set(call.unit, usedByUnit);
    for (const statement of decision.allowedBy) {
      for (const action of statement.actions.filter((pattern) => matchesAction(pattern, call.action))) {
        for (const resource of statement.resources.filter((pattern) => matchesResource(pattern, call.resource)))
          usedByUnit.add(`${statement.source}|${action}|${resource}`);
      }
    }
  }

  const unused: UnusedGrant[] = [];
  const unexercised: string[] = [];
  const exercised = new Set(calls.map((call) => call.unit));
  for (const role of [...roles.values()].sort((a, b) => a.unit.localeCompare(b.unit))) {
    if (!exercised.has(role.unit)) unexercised.push(role.unit);
    const usedByUnit = used.get(role.unit) ?? new Set<string>();
    for (const statement of statementsOf(role.roleId).filter((s) => s.effect === 'Allow')) {
      for (const action of statement.actions.filter((a) => !platformAction(a))) {
        for (const resource of statement.resources) {
          if (!usedByUnit.has(`${statement.source}|${action}|${resource}`))
            unused.push({ unit: role.unit, role: role.roleId, action, resource, statement: statement.source });
        }
      }
    }
  }
  return { violations: [...violations.values()], unused, unexercised, hostCalls, notes: [...notes], checkedCalls: calls.length - hostCalls.length };
}

// ---------------------------------------------------------------- reports

const groupBy = <T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
};

/** Every call not allowed, grouped by unit, then action: resources shown (at most 3 per action, with the count). */
export function formatViolations(violations: readonly Violation[]): string {
  if (!violations.length) return 'Every recorded AWS call is allowed by its unit’s role.';
  const lines = [`${violations.length} recorded AWS call(s) (distinct unit, action and resource) are NOT allowed by the role of the unit that made them:`];
  for (const [unit, ofUnit] of [...groupBy(violations, (v) => v.unit)].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push('', `  ${unit}   (role ${ofUnit[0]!.role})`);
    for (const [action, ofAction] of groupBy(ofUnit, (v) => v.action)) {
      const calls = [...new Set(ofAction.flatMap((v) => v.calls))].join(', ');
      lines.push(`    ${action}   needed by ${calls}`);
      for (const violation of ofAction.slice(0, 3)) lines.push(`      on ${violation.resource}`);
      if (ofAction.length > 3) lines.push(`      ... and ${ofAction.length - 3} more resource(s) like these`);
      lines.push(`      why: ${ofAction[0]!.reason}`);
    }
  }
  return lines.join('\n');
}

/** Granted actions no recorded call used, per unit (informational: where grants may be tightened). */
export function formatUnusedGrants(report: PermissionReport): string {
  const lines = [
    'Granted but not used by any recorded call (CloudWatch Logs and X-Ray grants, used by the runtime, are left out).',
    'A grant listed here may still be needed by a path the integration suite does not exercise.',
  ];
  for (const [unit, grants] of groupBy(report.unused, (g) => g.unit)) {
    lines.push('', `  ${unit}${report.unexercised.includes(unit) ? '   (no recorded call at all: not exercised by the integration suite)' : ''}`);
    // Actions unused on the same resources share a line.
    const resourcesOf = new Map<string, string[]>();
    for (const grant of grants) resourcesOf.set(grant.action, [...new Set([...(resourcesOf.get(grant.action) ?? []), grant.resource])]);
    for (const [resources, actions] of groupBy([...resourcesOf], ([, on]) => on.join(' , ')))
      lines.push(`    ${actions.map(([action]) => action).join(', ')}   on ${resources}`);
  }
  if (report.hostCalls.length) {
    lines.push(
      '',
      `  Calls the local host made outside any deployed unit (not checked): ${[...new Set(report.hostCalls.map((c) => `${c.action} on ${c.resource}`))].join('; ')}`,
    );
  }
  if (report.notes.length) lines.push('', '  Notes:', ...report.notes.map((note) => `    ${note}`));
  return lines.join('\n');
}
