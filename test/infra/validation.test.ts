import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { awsSolutionsErrors, synthesize, violations, type Synthesized } from './synth.js';

// Both checks run as policy validation plugins during synthesis: their findings land in the cloud
// assembly's validation report (and make `cdk synth` fail), not in construct annotations.
let synthesized: Synthesized;

beforeAll(() => {
  synthesized = synthesize();
}, 240_000);

afterAll(() => synthesized?.dispose());

describe('cdk-nag AwsSolutions', () => {
  it('reports no unacknowledged errors for the stack', () => {
    expect(awsSolutionsErrors(synthesized.validationReport)).toEqual([]);
  });

  it('does report errors when a resource breaks a rule (so the check above can fail)', () => {
    const broken = synthesize({ bundle: false, modify: ({ stack }) => new Bucket(stack, 'Unlogged') });
    try {
      const errors = awsSolutionsErrors(broken.validationReport);
      expect(errors).toContainEqual(expect.stringMatching(/^AwsSolutions-S1 at MediaScanner\/Unlogged\/Resource/));
      expect(errors).toContainEqual(expect.stringMatching(/^AwsSolutions-S10 at MediaScanner\/Unlogged\/Resource/));
    } finally {
      broken.dispose();
    }
  });
});

describe('CloudFormation resource schemas', () => {
  // Among others, this accepts the authorizer with no IdentitySource and a result TTL of 0.
  it('accept every resource of the template', () => {
    expect(violations(synthesized.validationReport, 'CloudFormation Validate', ['error', 'warning'])).toEqual([]);
  });
});
