/**
 * The AWS prices the cost bench (BENCH_ONLY=costs) multiplies what it measures by, in one place:
 * us-east-1 on-demand list prices, each with the page it is from. They are not fetched at run
 * time (the bench works offline); check the pages before quoting a figure, and change them here.
 */
export const PRICES_AS_OF = 'us-east-1 list prices as published on the pages below in 2025';

export const awsPrices = {
  /** Standard workflows: $0.025 per 1,000 state transitions. https://aws.amazon.com/step-functions/pricing/ */
  stepFunctionsTransition: 0.025 / 1_000,
  /** Lambda duration, per GB-second: x86_64 and arm64; and per request ($0.20 per million). https://aws.amazon.com/lambda/pricing/ */
  lambdaGbSecondX86: 0.0000166667,
  lambdaGbSecondArm: 0.0000133334,
  lambdaRequest: 0.2 / 1_000_000,
  /** Fargate Linux/x86_64, per vCPU-hour and per GB-hour, billed per second with a one-minute minimum. https://aws.amazon.com/fargate/pricing/ */
  fargateVcpuHour: 0.04048,
  fargateGbHour: 0.004445,
  /** DynamoDB on-demand, per write request unit ($0.625 per million since November 2024). https://aws.amazon.com/dynamodb/pricing/on-demand/ */
  dynamoDbWriteRequest: 0.625 / 1_000_000,
  /** S3 Standard: PUT and GET requests ($0.005 and $0.0004 per 1,000). https://aws.amazon.com/s3/pricing/ */
  s3Put: 0.005 / 1_000,
  s3Get: 0.0004 / 1_000,
  /** Amazon Transcribe batch, standard, first 250,000 minutes a month: $0.024 a minute, billed per second, 15 s minimum per job. https://aws.amazon.com/transcribe/pricing/ */
  transcribeMinute: 0.024,
  transcribeMinimumSeconds: 15,
  /**
   * Amazon Bedrock on-demand, Claude 3.5 Haiku (docs/analyzers.md's example model): $0.80 per million input
   * tokens, $4.00 per million output tokens. https://aws.amazon.com/bedrock/pricing/
   */
  bedrockInputToken: 0.8 / 1_000_000,
  bedrockOutputToken: 4 / 1_000_000,
} as const;
