/**
 * The zod every function uses: Zod Mini, with English error messages. Mini's functional API lets
 * a bundle carry only the schema kinds and checks it calls (~30 KB against ~100 KB for classic
 * zod's method chains), and its schemas are cheaper to build, which is most of a cold start's
 * own work. Mini loads no locale by default; without this, every message would read "Invalid input".
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';

z.config(en());

export * from 'zod/mini';
