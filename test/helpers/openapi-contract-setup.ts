/**
 * vitest setupFile of the `integration` project: every response a test receives through
 * test/helpers/api.ts is checked against openapi.json before the test sees it (a mismatch fails
 * the request, so the test), and its (route, status) pair is recorded for the coverage report
 * the project's global teardown writes (test/helpers/local-host-setup.ts).
 */
import { onResponse } from './api.js';
import { OpenApiContract, recordPair } from './openapi-contract.js';

const contract = new OpenApiContract();
onResponse((response) => recordPair(contract.check(response)));
