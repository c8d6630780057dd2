import { beforeAll, describe, expect, it } from 'vitest';
import { runtimeContracts, type ContainerContract, type LambdaContract } from '../../functions/runtime/contracts.js';
import { UNIT_METADATA } from '../../infra/constructs/unit-metadata.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';
import { synthesize } from './synth.js';
import { TemplateQueries, type Resource } from './template.js';

const contracts = runtimeContracts();
let q: TemplateQueries;

beforeAll(async () => {
  q = new TemplateQueries((await sharedAssembly()).template);
}, SHARED_ASSEMBLY_TIMEOUT_MS);

/** Each unit's resource, by the unit its metadata names. */
function unitResources(queries: TemplateQueries): Map<string, [string, Resource]> {
  const byUnit = new Map<string, [string, Resource]>();
  for (const [id, resource] of Object.entries(queries.resources)) {
    const unit = (resource as Resource & { Metadata?: Record<string, unknown> }).Metadata?.[UNIT_METADATA];
    if (typeof unit === 'string') {
      expect(byUnit.has(unit), `two resources run ${unit}`).toBe(false);
      byUnit.set(unit, [id, resource]);
    }
  }
  return byUnit;
}

const lambdaUnits = [...contracts.values()].filter((c): c is LambdaContract => c.kind === 'lambda').map((c) => [c.unit, c] as const);
const containerUnits = [...contracts.values()].filter((c): c is ContainerContract => c.kind === 'container').map((c) => [c.unit, c] as const);

describe('every deployed unit is built from its run-time contract', () => {
  it('deploys exactly the units that have a contract, each once', () => {
    expect([...unitResources(q).keys()].sort()).toEqual([...contracts.keys()].sort());
  });

  it.each(lambdaUnits)('%s: memory, timeout, /tmp, architecture, layer and the layer environment', (unit, contract) => {
    const [, fn] = unitResources(q).get(unit)!;
    const p = fn.Properties as {
      MemorySize: number;
      Timeout: number;
      Architectures: string[];
      EphemeralStorage?: { Size: number };
      Layers?: unknown[];
      Environment?: { Variables: Record<string, unknown> };
    };
    expect(fn.Type).toBe('AWS::Lambda::Function');
    expect(p.MemorySize).toBe(contract.memoryMb);
    expect(p.Timeout).toBe(contract.timeoutSeconds);
    expect(p.Architectures).toEqual([contract.architecture]);
    // Lambda's /tmp is the unit's one writable path; 512 MiB unless the template asks for more.
    expect(contract.writable.map((w) => w.path)).toEqual(['/tmp']);
    expect(p.EphemeralStorage?.Size ?? 512).toBe(contract.writable[0]!.sizeMiB);
    expect((p.Layers ?? []).length).toBe(Number(contract.ffmpegLayer) + Number(contract.ytDlpLayer));
    expect((p as { Runtime?: string }).Runtime).toBe(contract.runtime);
    expect(p.Environment?.Variables ?? {}).toMatchObject(contract.environment);
  });

  it.each(containerUnits)('%s: cpu, memory, task storage, read-only root, scratch mounts and the command that chooses its program', (unit, contract) => {
    const [, definition] = unitResources(q).get(unit)!;
    const p = definition.Properties as {
      Cpu: string;
      Memory: string;
      EphemeralStorage?: { SizeInGiB: number };
      Volumes: { Name: string }[];
      ContainerDefinitions: {
        Name: string;
        Command: string[];
        ReadonlyRootFilesystem: boolean;
        MountPoints: { ContainerPath: string; SourceVolume: string; ReadOnly: boolean }[];
      }[];
    };
    expect(definition.Type).toBe('AWS::ECS::TaskDefinition');
    expect([p.Cpu, p.Memory]).toEqual([String(contract.cpu), String(contract.memoryMb)]);
    expect(p.EphemeralStorage?.SizeInGiB ?? 20).toBe(contract.ephemeralStorageGiB);
    const [container] = p.ContainerDefinitions;
    expect(container).toMatchObject({ Name: contract.containerName, Command: [...contract.command], ReadonlyRootFilesystem: true });
    expect(container!.MountPoints.map((m) => [m.ContainerPath, m.ReadOnly])).toEqual(contract.writable.map((w) => [w.path, false]));
    expect(p.Volumes.map((v) => v.Name).sort()).toEqual(container!.MountPoints.map((m) => m.SourceVolume).sort());
    // Each writable path fits the task's storage, which backs every bind mount.
    for (const path of contract.writable) expect(path.sizeMiB).toBeLessThanOrEqual(contract.ephemeralStorageGiB * 1024);
  });

  it('gives every container task the image user write access to its scratch space (the image declares the volume)', () => {
    for (const [, contract] of containerUnits) {
      expect(contract.user.name).toBe('node');
      for (const path of contract.writable) expect(path.mode & 0o002, `${contract.unit} ${path.path}`).not.toBe(0);
    }
  });
});

describe('runs survive deploys', () => {
  it('names task definitions by family in the state machines and grants RunTask on every revision, so a second synth with another image keeps both', () => {
    const substitutionsAndGrants = (imageUri: string) => {
      const synthesized = synthesize({ bundle: false, cdkJson: { containerImageUri: imageUri } });
      try {
        const queries = new TemplateQueries(synthesized.template);
        const units = unitResources(queries);
        const families = containerUnits.map(([unit]) => (units.get(unit)![1].Properties as { Family: string }).Family);
        const substitutions = Object.values(queries.find('AWS::StepFunctions::StateMachine')).map((m) => m.Properties.DefinitionSubstitutions);
        const runTask = Object.values(queries.find('AWS::IAM::Policy')).flatMap((policy) =>
          (policy.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement.filter((s) =>
            [s.Action].flat().includes('ecs:RunTask'),
          ).map((s) => s.Resource),
        );
        const images = containerUnits.map(
          ([unit]) => (units.get(unit)![1].Properties as { ContainerDefinitions: { Image: unknown }[] }).ContainerDefinitions[0]!.Image,
        );
        return { families, substitutions, runTask, images };
      } finally {
        synthesized.dispose();
      }
    };
    const before = substitutionsAndGrants('111111111111.dkr.ecr.us-east-1.amazonaws.com/media-scanner:1');
    const after = substitutionsAndGrants('111111111111.dkr.ecr.us-east-1.amazonaws.com/media-scanner:2');
    expect(after.images).not.toEqual(before.images);
    // One image serves every task: each chooses its program by command.
    expect(new Set(before.images).size).toBe(1);
    expect(after.substitutions).toEqual(before.substitutions);
    expect(after.runTask).toEqual(before.runTask);
    const substituted = JSON.stringify(before.substitutions);
    for (const family of before.families) {
      expect(substituted).toContain(`"${family}"`);
      expect(JSON.stringify(before.runTask)).toContain(`task-definition/${family}:*`);
    }
    // No revision (a Ref of a task definition is its revision ARN) reaches a state machine.
    expect(substituted).not.toMatch(/TaskDefinition[0-9A-F]{8}"\}/);
  });
});
