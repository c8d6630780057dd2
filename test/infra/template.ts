import { Match, type Template } from 'aws-cdk-lib/assertions';
import { UNIT_METADATA } from '../../infra/constructs/unit-metadata.js';

/** Reading a synthesized template the way the infra tests need it. */
export interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
}

export type FnGetAtt = { 'Fn::GetAtt': [string, string] };

export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

export class TemplateQueries {
  public constructor(public readonly template: Template) {}

  public get resources(): Record<string, Resource> {
    return (this.template.toJSON() as { Resources: Record<string, Resource> }).Resources;
  }

  public find(type: string, props: object = {}): Record<string, Resource> {
    return this.template.findResources(type, { Properties: props }) as Record<string, Resource>;
  }

  public resource(logicalId: string): Resource {
    const found = this.resources[logicalId];
    if (!found) throw new Error(`No resource ${logicalId}`);
    return found;
  }

  /**
   * Logical ids of the service's functions: each runs a unit (infra/constructs/unit-metadata.ts).
   * CDK's own deploy-time handler (the console's BucketDeployment) runs none and is not among them.
   */
  public functionIds(): string[] {
    return Object.entries(this.find('AWS::Lambda::Function'))
      .filter(([, fn]) => typeof fn.Metadata?.[UNIT_METADATA] === 'string')
      .map(([id]) => id);
  }

  /** The logical id of the function that runs this unit (its metadata names it), if the template has one. */
  public functionOfUnit(unit: string): string | undefined {
    return this.functionIds().find((id) => this.resource(id).Metadata?.[UNIT_METADATA] === unit);
  }

  /** Logical ids of the Node functions: every function but the provider resolver (Python, test/infra/provider-resolver.test.ts). */
  public nodeFunctionIds(): string[] {
    return this.functionIds().filter((id) => String(this.resource(id).Properties.Runtime).startsWith('nodejs'));
  }

  /** Logical ids of the functions the table's stream invokes (the outbox relay). */
  public functionsOnTableStream(): string[] {
    return this.functionsOnEventSources('StreamArn');
  }

  /** Logical ids of the functions an SQS queue invokes (the webhook sender). */
  public functionsOnQueues(): string[] {
    return this.functionsOnEventSources('Arn');
  }

  /** Functions of event source mappings whose source is `Fn::GetAtt: [<resource>, attribute]`. */
  private functionsOnEventSources(attribute: 'StreamArn' | 'Arn'): string[] {
    return Object.values(this.find('AWS::Lambda::EventSourceMapping')).flatMap((mapping) => {
      const source = (mapping.Properties.EventSourceArn as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
      const target = mapping.Properties.FunctionName as { Ref?: string };
      const sourceType = source ? this.resources[source[0]]?.Type : undefined;
      const matches = attribute === 'StreamArn' ? source?.[1] === 'StreamArn' : source?.[1] === 'Arn' && sourceType === 'AWS::SQS::Queue';
      return matches && target.Ref ? [target.Ref] : [];
    });
  }

  /** Logical ids of a route, the integration it targets and the Lambda function that integration invokes. */
  public routeParts(key: string): { routeId: string; integrationId: string; functionId: string } {
    const [[routeId, route] = []] = Object.entries(this.find('AWS::ApiGatewayV2::Route', { RouteKey: key }));
    if (!routeId || !route) throw new Error(`No route ${key}`);
    const target = route.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
    const integrationId = target['Fn::Join'][1][1].Ref;
    const functionId = (this.resource(integrationId).Properties.IntegrationUri as FnGetAtt)['Fn::GetAtt'][0];
    return { routeId, integrationId, functionId };
  }

  /** Logical id of the Lambda function a route's integration invokes. */
  public functionBehindRoute(key: string): string {
    return this.routeParts(key).functionId;
  }

  /** Logical id of the role a function runs with. */
  public roleOf(functionId: string): string {
    return (this.resource(functionId).Properties.Role as FnGetAtt)['Fn::GetAtt'][0];
  }

  /** Logical ids of the IAM policies attached to a role. */
  public policiesOfRole(roleId: string): string[] {
    return Object.keys(this.find('AWS::IAM::Policy', { Roles: Match.arrayWith([{ Ref: roleId }]) }));
  }

  /**
   * What one route costs the template, by logical id: its route, integration and function, whatever
   * refers to them and to no other route's (a Lambda permission, an alarm on the function), and its
   * function's role with the role's policies, as if no other route shared them (a route whose grants
   * no route has yet brings its own).
   */
  public resourcesOfRoute(key: string, allKeys: readonly string[]): string[] {
    const partsOf = (routeKey: string): string[] => Object.values(this.routeParts(routeKey));
    const own = partsOf(key);
    const others = new Set(allKeys.filter((other) => other !== key).flatMap(partsOf));
    const referenced = (value: unknown): string[] => [...JSON.stringify(value ?? {}).matchAll(/\{"(?:Ref|Fn::GetAtt)":\[?"([^"]+)"/g)].map(([, id]) => id!);
    const dependents = Object.entries(this.resources).flatMap(([id, resource]) => {
      const ids = referenced(resource.Properties);
      return !own.includes(id) && ids.some((ref) => own.includes(ref)) && !ids.some((ref) => others.has(ref)) ? [id] : [];
    });
    const roleId = this.roleOf(this.functionBehindRoute(key));
    return [...new Set([...own, ...dependents, roleId, ...this.policiesOfRole(roleId)])];
  }

  /** Every statement of the IAM policies attached to a role. */
  public statementsOfRole(roleId: string): Statement[] {
    return Object.values(this.find('AWS::IAM::Policy', { Roles: [{ Ref: roleId }] })).flatMap(
      (policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
    );
  }

  /** Every statement of the IAM policies attached to a function's role, by the function's logical id. */
  public statementsOf(functionId: string): Statement[] {
    return this.statementsOfRole(this.roleOf(functionId));
  }

  /** Every IAM action granted to the role of a function, by the function's logical id. */
  public actionsOf(functionId: string): string[] {
    return this.statementsOf(functionId).flatMap((s) => asArray(s.Action));
  }

  /** The resources of every statement that grants `action`. */
  public resourcesGranted(statements: readonly Statement[], action: string): unknown[] {
    return statements.filter((s) => asArray(s.Action).includes(action)).flatMap((s) => asArray(s.Resource));
  }

  public environmentOf(functionId: string): Record<string, unknown> {
    return (this.resource(functionId).Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
  }

  public descriptionOf(functionId: string): unknown {
    return this.resource(functionId).Properties.Description;
  }
}

/** The minified ASL text the state machine of a workflow-table entry must deploy. */
export const deployedDefinition = (aslText: string): string => JSON.stringify(JSON.parse(aslText));

export interface DeployedStateMachine {
  readonly id: string;
  readonly resource: Resource;
  /** Placeholder -> logical id of the Lambda function substituted for it. */
  readonly taskFunctionIds: Record<string, string>;
  /** Placeholder -> logical id of the ECS task definition substituted for it (container tasks). */
  readonly taskDefinitionIds: Record<string, string>;
}

/** The state machine deploying `aslText`, with the logical ids of the functions and task definitions its placeholders name. */
export function stateMachineDeploying(q: TemplateQueries, aslText: string): DeployedStateMachine {
  const matches = Object.entries(q.find('AWS::StepFunctions::StateMachine', { DefinitionString: deployedDefinition(aslText) }));
  if (matches.length !== 1) throw new Error(`Expected one state machine deploying the definition, found ${matches.length}`);
  const [[id, resource]] = matches as [[string, Resource]];
  const substitutions = (resource.Properties.DefinitionSubstitutions ?? {}) as Record<string, (Partial<FnGetAtt> & { Ref?: string }) | string>;
  // A task definition is named by its family (a string), never by a revision (infra/constructs/service-container-task.ts).
  const familyIds = Object.fromEntries(
    Object.entries(q.find('AWS::ECS::TaskDefinition')).map(([logicalId, definition]) => [definition.Properties.Family as string, logicalId]),
  );
  const substitutedOfType = (type: string): Record<string, string> =>
    Object.fromEntries(
      Object.entries(substitutions).flatMap(([key, value]) => {
        const logicalId = typeof value === 'string' ? familyIds[value] : (value['Fn::GetAtt']?.[0] ?? value.Ref);
        return logicalId !== undefined && q.resources[logicalId]?.Type === type ? [[key, logicalId]] : [];
      }),
    );
  return { id, resource, taskFunctionIds: substitutedOfType('AWS::Lambda::Function'), taskDefinitionIds: substitutedOfType('AWS::ECS::TaskDefinition') };
}

/** The EventBridge rules whose pattern names a state machine (by its logical id): its execution status changes. */
export function rulesOnStateMachine(q: TemplateQueries, stateMachineId: string): [string, Resource][] {
  return Object.entries(q.find('AWS::Events::Rule')).filter(([, rule]) => {
    const pattern = rule.Properties.EventPattern as { detail?: { stateMachineArn?: unknown } } | undefined;
    return JSON.stringify(pattern?.detail?.stateMachineArn) === JSON.stringify([{ Ref: stateMachineId }]);
  });
}

/** The logical id of the function the one rule on a state machine's ended executions targets (a workflow's onExecutionEnded). */
export function settleFunctionOf(q: TemplateQueries, stateMachineId: string): string {
  const rules = rulesOnStateMachine(q, stateMachineId);
  if (rules.length !== 1) throw new Error(`Expected one rule on ${stateMachineId}, found ${rules.length}`);
  const targets = rules[0]![1].Properties.Targets as { Arn: Partial<FnGetAtt> }[];
  const functionId = targets.length === 1 ? targets[0]!.Arn['Fn::GetAtt']?.[0] : undefined;
  if (functionId === undefined || q.resources[functionId]?.Type !== 'AWS::Lambda::Function') {
    throw new Error(`The rule on ${stateMachineId} does not target exactly one function`);
  }
  return functionId;
}

interface AlarmMetric {
  readonly MetricStat?: {
    readonly Metric: { readonly Namespace: string; readonly MetricName: string; readonly Dimensions?: { Name: string; Value: unknown }[] };
  };
}

/** The alarms that watch `metricName` of `namespace` where dimension `dimension` is `value`, directly or inside metric math. */
export function alarmsWatching(q: TemplateQueries, namespace: string, metricName: string, dimension: string, value: unknown): Resource[] {
  return Object.values(q.find('AWS::CloudWatch::Alarm')).filter((alarm) =>
    ((alarm.Properties.Metrics ?? []) as AlarmMetric[]).some(({ MetricStat }) => {
      const metric = MetricStat?.Metric;
      return (
        metric?.Namespace === namespace &&
        metric.MetricName === metricName &&
        (metric.Dimensions ?? []).some((d) => d.Name === dimension && JSON.stringify(d.Value) === JSON.stringify(value))
      );
    }),
  );
}

/**
 * Logical ids of the queues the template names as dead-letter queues: of a queue's redrive policy,
 * an EventBridge target, a function's asynchronous invocations, an invoke config's or event source
 * mapping's failures, an SNS subscription.
 */
export function deadLetterQueueIdsIn(q: TemplateQueries): string[] {
  const at = (value: unknown, ...path: string[]): unknown =>
    path.reduce<unknown>((v, key) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined), value);
  const named = Object.values(q.resources).flatMap(({ Type, Properties }): unknown[] => {
    switch (Type) {
      case 'AWS::SQS::Queue':
      case 'AWS::SNS::Subscription':
        return [at(Properties, 'RedrivePolicy', 'deadLetterTargetArn')];
      case 'AWS::Events::Rule':
        return ((at(Properties, 'Targets') ?? []) as unknown[]).map((target) => at(target, 'DeadLetterConfig', 'Arn'));
      case 'AWS::Lambda::Function':
        return [at(Properties, 'DeadLetterConfig', 'TargetArn')];
      case 'AWS::Lambda::EventInvokeConfig':
      case 'AWS::Lambda::EventSourceMapping':
        return [at(Properties, 'DestinationConfig', 'OnFailure', 'Destination')];
      default:
        return [];
    }
  });
  const ids = named.flatMap((arn) => {
    const id = (arn as Partial<FnGetAtt> | undefined)?.['Fn::GetAtt']?.[0];
    return id !== undefined && q.resources[id]?.Type === 'AWS::SQS::Queue' ? [id] : [];
  });
  return [...new Set(ids)];
}
