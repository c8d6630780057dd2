import { describe, expect, it } from 'vitest';
import { announcement, eventIdOf, type Announcement } from '../../../../functions/domain/events/model.js';
import { drainOutbox, relayAnnouncement, type RelayDeps } from '../../../../functions/domain/events/outbox.js';
import { endAnnouncements } from '../../../../functions/domain/runs/model.js';
import type { ServiceEvent } from '../../../../functions/domain/events/model.js';
import type { RunRecord } from '../../../../functions/domain/runs/model.js';

const AT = '2026-03-01T10:00:00.000Z';
const run = (oneOff: boolean) =>
  ({ accountId: 'acct_1', runId: 'run_1', analysisId: 'ana_1', ...(oneOff ? { oneOff: { proof: false } } : {}) }) as unknown as RunRecord;

/** An outbox in memory, a bus that records (and fails when told), and subjects presented as `{id}`. */
function fakeRelay(pending: { accountId: string; announcement: Announcement }[]) {
  const published: { accountId: string; event: ServiceEvent }[] = [];
  const warnings: string[] = [];
  let failing = new Set<string>();
  const deps: RelayDeps = {
    outbox: {
      pending: (limit) => Promise.resolve(pending.slice(0, limit)),
      remove: (accountId, eventId) => {
        const index = pending.findIndex((p) => p.accountId === accountId && p.announcement.eventId === eventId);
        if (index >= 0) pending.splice(index, 1);
        return Promise.resolve();
      },
    },
    subjects: { present: (_accountId, subject) => Promise.resolve(subject.kind === 'upload' && subject.uploadId === 'upl_gone' ? undefined : { subject }) },
    events: {
      publish: (accountId, event) => {
        if (failing.has(event.id)) return Promise.reject(new Error('bus down'));
        published.push({ accountId, event });
        return Promise.resolve();
      },
    },
    warn: (message) => warnings.push(message),
  };
  return { deps, published, warnings, pending, failOn: (ids: string[]) => (failing = new Set(ids)) };
}

describe('announcements', () => {
  it('derive the event id from the type and the subject, so a repeated end is the same event', () => {
    const first = announcement('run.completed', { kind: 'run', runId: 'run_1' }, AT);
    expect(first.eventId).toBe(eventIdOf('run.completed', 'run_1'));
    expect(first.eventId).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(announcement('run.completed', { kind: 'run', runId: 'run_1' }, '2027-01-01T00:00:00.000Z').eventId).toBe(first.eventId);
    expect(announcement('run.failed', { kind: 'run', runId: 'run_1' }, AT).eventId).not.toBe(first.eventId);
  });

  it('announce a scanner run and its analysis; a one-off analysis alone', () => {
    expect(endAnnouncements(run(false), 'completed', AT).map((a) => a.type)).toEqual(['run.completed', 'analysis.completed']);
    expect(endAnnouncements(run(false), 'canceled', AT).map((a) => a.type)).toEqual(['run.failed', 'analysis.canceled']);
    expect(endAnnouncements(run(true), 'failed', AT).map((a) => [a.type, a.subject])).toEqual([['analysis.failed', { kind: 'analysis', analysisId: 'ana_1' }]]);
  });
});

describe('the relay', () => {
  const pendingOf = (type: 'upload.ready' | 'run.completed', id: string) => ({
    accountId: 'acct_1',
    announcement: type === 'upload.ready' ? announcement(type, { kind: 'upload', uploadId: id }, AT) : announcement(type, { kind: 'run', runId: id }, AT),
  });

  it('publishes each announcement with its subject as presented now and its own time, then removes it', async () => {
    const relay = fakeRelay([pendingOf('upload.ready', 'upl_1')]);
    await relayAnnouncement(relay.deps, 'acct_1', relay.pending[0]!.announcement);
    expect(relay.published).toEqual([
      {
        accountId: 'acct_1',
        event: {
          id: eventIdOf('upload.ready', 'upl_1'),
          type: 'upload.ready',
          created_at: AT,
          data: { object: { subject: { kind: 'upload', uploadId: 'upl_1' } } },
        },
      },
    ]);
    expect(relay.pending).toEqual([]);
  });

  it('drains everything pending; what fails to publish stays pending for the next drain', async () => {
    const relay = fakeRelay([pendingOf('upload.ready', 'upl_1'), pendingOf('run.completed', 'run_1'), pendingOf('upload.ready', 'upl_2')]);
    relay.failOn([eventIdOf('run.completed', 'run_1')]);
    expect(await drainOutbox(relay.deps, 2)).toBe(2);
    expect(relay.pending.map((p) => p.announcement.type)).toEqual(['run.completed']);
    expect(relay.warnings).toEqual([expect.stringContaining('stays pending')]);
    relay.failOn([]);
    expect(await drainOutbox(relay.deps)).toBe(1);
    expect(relay.published.map((p) => p.event.id)).toEqual([
      eventIdOf('upload.ready', 'upl_1'),
      eventIdOf('upload.ready', 'upl_2'),
      eventIdOf('run.completed', 'run_1'),
    ]);
  });

  it('drops an announcement whose record is gone, saying so', async () => {
    const relay = fakeRelay([pendingOf('upload.ready', 'upl_gone')]);
    expect(await drainOutbox(relay.deps)).toBe(1);
    expect(relay.published).toEqual([]);
    expect(relay.pending).toEqual([]);
    expect(relay.warnings).toEqual([expect.stringContaining('no longer exists')]);
  });
});
