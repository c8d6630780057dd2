import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { nowIso } from '../clock.js';
import { idsFor, restartIfUnstarted, type IdClaims } from '../id-claims.js';
import { limitsOf } from '../accounts/accounts.js';
import type { Account } from '../accounts/model.js';
import type { Span } from '../engine/signals.js';
import { DEFAULT_WHAT_TO_FIND, type ChatMomentType } from '../engine/moment-brief.js';
import { classifySourceUrl } from '../sources/classify.js';
import type { SourceFacts, SourceOrigin, SourceReader } from '../sources/ports.js';
import { creditsFor, queuedAnalysis, queuedRun, type AnalysisRecord, type AnalysisSource, type SpeechCleanup } from '../runs/model.js';
import type { RunStore, WorkflowStarter } from '../runs/ports.js';
import { startOrRefund } from '../runs/create.js';
import type { Profile, ScannerDefinition } from '../scanners/model.js';
import { PAID_MAX_SOURCE_BYTES, PROOF_MAX_SOURCE_BYTES, PROOF_MAX_WINDOW_MS } from './limits.js';
import { ONE_OFF_DEFAULTS } from './model.js';

/** POST /v1/sources/preflight as validated at the edge. */
interface PreflightInput {
  source_url: string;
}

/** POST /v1/analyses (and its quote) as validated at the edge; what needs the source is checked here. */
interface AnalysisCreate {
  source_url: string;
  analysis_start_seconds: number;
  analysis_end_seconds: number;
  /** Pay with the account's one proof analysis instead of credits. */
  use_proof_allowance: boolean;
  what_to_find?: string | undefined;
  profile?: Profile | undefined;
  chat_moment_types?: ChatMomentType[] | undefined;
  speech_cleanup?: SpeechCleanup | undefined;
  max_moments?: number | undefined;
  min_seconds?: number | undefined;
  max_seconds?: number | undefined;
}

export interface OneOffDeps {
  runs: RunStore;
  sources: SourceReader;
  workflows: WorkflowStarter;
  claims: IdClaims;
  /** The local host with LOCAL_ALLOW_LOOPBACK_TARGETS=1 only (DESIGN §9). */
  allowLoopback: boolean;
}

interface ProbedSource {
  url: URL;
  origin: SourceOrigin;
  facts: SourceFacts;
}

/** Classified before any connection is made (422 untrusted_source_url), then measured. */
async function probe(deps: Pick<OneOffDeps, 'sources' | 'allowLoopback'>, account: Account, rawUrl: string): Promise<ProbedSource> {
  const { url, origin } = classifySourceUrl(rawUrl, account.trustedHosts, { allowLoopback: deps.allowLoopback });
  return { url, origin, facts: await deps.sources.preflight(url, origin) };
}

const proofAvailable = (account: Account): boolean => !account.proofAnalysisId;

/** Where a source came from, as records show it: a provider or the trusted host, never the URL. */
function presentedSource({ url, origin, facts }: ProbedSource): AnalysisSource {
  return {
    kind: 'url',
    provider:
      origin.kind === 'provider'
        ? { id: origin.provider.id, name: origin.provider.name, kind: origin.provider.kind }
        : { kind: 'trusted_host', host: origin.host },
    host: url.hostname,
    media_kind: 'video',
    duration_ms: facts.durationMs,
    size_bytes: facts.sizeBytes,
    title: facts.title,
  };
}

export interface SourcePreflight {
  source: AnalysisSource;
  /** The longest window this account can take now: its credits, or its proof allowance. */
  maxWindowMs: number;
  proofAvailable: boolean;
}

/** POST /v1/sources/preflight: measures a permitted source; no credits, nothing stored. */
export async function preflightSource(deps: Pick<OneOffDeps, 'sources' | 'allowLoopback'>, account: Account, input: PreflightInput): Promise<SourcePreflight> {
  const probed = await probe(deps, account, input.source_url);
  const duration = probed.facts.durationMs;
  const paidMs = Math.min(duration, Math.max(0, account.creditsBalance) * 60_000);
  const proof = proofAvailable(account) && (probed.facts.sizeBytes ?? 0) <= PROOF_MAX_SOURCE_BYTES;
  return { source: presentedSource(probed), maxWindowMs: proof ? Math.max(paidMs, Math.min(duration, PROOF_MAX_WINDOW_MS)) : paidMs, proofAvailable: proof };
}

export interface AnalysisQuote {
  window: Span;
  billedMs: number;
  /** What the analysis will cost: 0 when the proof allowance pays. */
  credits: number;
  balance: number;
  affordable: boolean;
  proof: { available: boolean; applies: boolean };
  limits: { maxSourceBytes: number; concurrency: number };
}

/** What prices an analysis; the rest of a submission does not. */
type PricedInput = Pick<AnalysisCreate, 'analysis_start_seconds' | 'analysis_end_seconds' | 'use_proof_allowance'>;

/** SPEC: a required window inside the source; a proof window at most 7,200 s. */
function windowOf(input: PricedInput, facts: SourceFacts): Span {
  const window = { startMs: Math.round(input.analysis_start_seconds * 1000), endMs: Math.round(input.analysis_end_seconds * 1000) };
  if (window.endMs <= window.startMs)
    throw new ApiError('window_out_of_range', 'analysis_end_seconds must be after analysis_start_seconds.', 'analysis_end_seconds');
  if (window.endMs > facts.durationMs) {
    throw new ApiError('window_out_of_range', `analysis_end_seconds is past the end of the source (${facts.durationMs / 1000} s).`, 'analysis_end_seconds');
  }
  if (input.use_proof_allowance && window.endMs - window.startMs > PROOF_MAX_WINDOW_MS) {
    throw new ApiError('window_out_of_range', `A proof analysis takes a window of at most ${PROOF_MAX_WINDOW_MS / 1000} s.`, 'analysis_end_seconds');
  }
  return window;
}

function quoteOf(account: Account, input: PricedInput, facts: SourceFacts): AnalysisQuote {
  const window = windowOf(input, facts);
  const billedMs = window.endMs - window.startMs;
  const windowCredits = creditsFor(billedMs);
  const available = proofAvailable(account);
  const applies = input.use_proof_allowance && available;
  const maxSourceBytes = applies ? PROOF_MAX_SOURCE_BYTES : PAID_MAX_SOURCE_BYTES;
  return {
    window,
    billedMs,
    credits: applies ? 0 : windowCredits,
    balance: account.creditsBalance,
    affordable: applies || account.creditsBalance >= windowCredits,
    proof: { available, applies },
    limits: { maxSourceBytes, concurrency: limitsOf(account).concurrency },
  };
}

/** POST /v1/analyses/quote: the exact credits of the submission's window (1 per started minute). */
export async function quoteAnalysis(deps: Pick<OneOffDeps, 'sources' | 'allowLoopback'>, account: Account, input: AnalysisCreate): Promise<AnalysisQuote> {
  const { facts } = await probe(deps, account, input.source_url);
  return quoteOf(account, input, facts);
}

/** The find_moments question a one-off request asks, answered by the same pipeline as scanner runs. */
function definitionOf(input: AnalysisCreate): ScannerDefinition {
  return {
    name: 'One-off analysis',
    instructions: input.what_to_find ?? DEFAULT_WHAT_TO_FIND,
    type: 'find_moments',
    profile: input.profile ?? ONE_OFF_DEFAULTS.profile,
    max_observations: input.max_moments ?? ONE_OFF_DEFAULTS.max_moments,
    min_seconds: input.min_seconds ?? ONE_OFF_DEFAULTS.min_seconds,
    max_seconds: input.max_seconds ?? ONE_OFF_DEFAULTS.max_seconds,
  };
}

/** Where the private copy of a one-off source lives: beside uploads, under the account. */
const acquiredSourceKey = (accountId: string, analysisId: string): string => `accounts/${accountId}/sources/${analysisId}`;

/**
 * POST /v1/analyses: re-computes the quote, then reserves its credits (or claims the proof
 * allowance) in the same transaction that creates the analysis, before any acquisition or
 * compute; then starts the workflow, whose first work step acquires the source. Under an
 * Idempotency-Key the ids are claimed first, and an analysis an earlier attempt created under
 * them is the answer (before anything is probed or checked again: it is already paid for).
 */
export async function submitOneOff(deps: OneOffDeps, account: Account, input: AnalysisCreate, idempotencyKey?: string): Promise<AnalysisRecord> {
  const ids = await idsFor(deps.claims, account.accountId, 'one_off', idempotencyKey, () => ({ runId: newId('run'), analysisId: newId('analysis') }));
  const earlier = idempotencyKey === undefined ? undefined : await alreadyCreated(deps, account.accountId, ids);
  if (earlier) return earlier;
  const probed = await probe(deps, account, input.source_url);
  const quote = quoteOf(account, input, probed.facts);
  if (input.use_proof_allowance && !quote.proof.applies) {
    throw new ApiError('proof_allowance_exhausted', 'This account has used its proof analysis.', 'use_proof_allowance');
  }
  if (!quote.affordable) throw new ApiError('insufficient_credits', `This analysis needs ${quote.credits} credit(s); the wallet holds ${quote.balance}.`);
  const size = probed.facts.sizeBytes;
  if (size !== null && size > quote.limits.maxSourceBytes) {
    throw new ApiError('source_too_large', `The source is ${size} bytes; this analysis takes at most ${quote.limits.maxSourceBytes}.`, 'source_url');
  }

  const now = nowIso();
  const { analysisId } = ids;
  const definition = definitionOf(input);
  const speechCleanup = input.speech_cleanup ?? ONE_OFF_DEFAULTS.speech_cleanup;
  const chatMomentTypes = input.chat_moment_types ?? ['auto'];
  const run = queuedRun(
    {
      runId: ids.runId,
      accountId: account.accountId,
      analysisId,
      scannerId: '',
      scannerVersion: 0,
      scanner: definition,
      uploadId: '',
      objectKey: acquiredSourceKey(account.accountId, analysisId),
      mediaKind: 'video',
      sourceDurationMs: probed.facts.durationMs,
      window: quote.window,
      metadata: {},
      credits: quote.credits,
      oneOff: {
        sourceUrl: probed.url.href,
        origin: probed.origin,
        brief: { chatMomentTypes },
        speechCleanup,
        proof: quote.proof.applies,
        maxSourceBytes: quote.limits.maxSourceBytes,
        knownSizeBytes: probed.facts.sizeBytes,
        retentionDays: limitsOf(account).retentionDays,
      },
    },
    now,
  );
  const analysis = queuedAnalysis(
    {
      analysisId,
      accountId: account.accountId,
      runId: run.runId,
      kind: 'one_off',
      source: presentedSource(probed),
      window: quote.window,
      request: {
        what_to_find: input.what_to_find ?? null,
        profile: definition.profile ?? ONE_OFF_DEFAULTS.profile,
        chat_moment_types: [...chatMomentTypes],
        speech_cleanup: speechCleanup,
        max_moments: definition.max_observations ?? ONE_OFF_DEFAULTS.max_moments,
        min_seconds: definition.min_seconds ?? ONE_OFF_DEFAULTS.min_seconds,
        max_seconds: definition.max_seconds ?? ONE_OFF_DEFAULTS.max_seconds,
      },
      proof: quote.proof.applies,
      reservedCredits: quote.credits,
    },
    now,
  );
  const outcome = await deps.runs.createWithReservation(run, analysis, {
    entryId: newId('ledger'),
    credits: -quote.credits,
    reason: `analysis_reserved:${analysisId}`,
    createdAt: now,
  });
  if (outcome !== 'created' && idempotencyKey !== undefined) {
    // A concurrent attempt under the same key may have won the reservation: its analysis is the answer.
    const raced = await alreadyCreated(deps, account.accountId, ids);
    if (raced) return raced;
  }
  if (outcome === 'proof_allowance_exhausted')
    throw new ApiError('proof_allowance_exhausted', 'This account has used its proof analysis.', 'use_proof_allowance');
  if (outcome !== 'created') throw new ApiError('insufficient_credits', `This analysis needs ${quote.credits} credit(s); the wallet cannot cover it.`);
  await startOrRefund(deps, run);
  return analysis;
}

/** The analysis an earlier attempt under the same key created, its workflow started if that attempt could not. */
async function alreadyCreated(
  deps: Pick<OneOffDeps, 'runs' | 'workflows'>,
  accountId: string,
  ids: { runId: string; analysisId: string },
): Promise<AnalysisRecord | undefined> {
  const analysis = await deps.runs.getAnalysis(accountId, ids.analysisId);
  if (analysis) await restartIfUnstarted(analysis.status === 'queued', () => deps.workflows.startAnalysis({ accountId, ...ids }));
  return analysis;
}
