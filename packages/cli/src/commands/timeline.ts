import { writeFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { unwrap } from '../../../client/src/index.js';
import { UsageError } from '../output.js';
import { lanesOf, mmss, renderTimeline, renderTimelineHtml } from '../timeline.js';
import type { Cli } from './cli.js';
import { observationsOf } from './runs.js';

/** `timeline`: a completed run's observations drawn over the source's duration (timeline.ts), as SVG or HTML. */
export function timelineCommand(cli: Cli): void {
  cli.root
    .command('timeline <run_id>')
    .description("draw a completed run's observations on a time axis over the source duration (one lane per event or scanner type, bar height = score)")
    .requiredOption('--out <file>', 'FILE.svg, or FILE.html (the same SVG in a page with a legend)')
    .action(
      cli.run(async ({ api, out }, runId: string, options: { out: string }) => {
        const format = extname(options.out).toLowerCase();
        if (format !== '.svg' && format !== '.html') throw new UsageError(`--out ends in .svg or .html, not "${options.out}".`);
        const record = await unwrap(api.api.GET('/v1/runs/{run_id}', { params: { path: { run_id: runId } } }));
        const observations = await observationsOf(api, runId);
        await writeFile(options.out, format === '.svg' ? renderTimeline(record, observations) : renderTimelineHtml(record, observations));
        const lanes = lanesOf(observations).map(({ name, count }) => ({ name, count }));
        out.result(
          { out: resolve(options.out), run_id: record.run_id, duration_ms: record.source.duration_ms, observations: observations.length, lanes },
          () => `Wrote ${options.out}: ${observations.length} observation(s) in ${lanes.length} lane(s) over ${mmss(record.source.duration_ms)}.`,
        );
      }),
    );
}
