#!/usr/bin/env node
// The repo ships TypeScript sources, not a build: tsx's loader runs them. The root package.json
// names this file as the `media-scanner` bin, so `npx media-scanner` works in the repo.
import process from 'node:process';
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
