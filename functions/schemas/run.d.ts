// Keeps functions/domain's imports of the old path working until the domain restructuring (issue 27 item 1) drops them; then delete functions/schemas/.
export * from '../resources/runs/request.js';
export * from '../resources/observations/request.js';
