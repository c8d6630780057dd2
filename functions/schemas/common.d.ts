// Keeps functions/domain's imports of the old path working until the domain restructuring (issue 27 item 1) drops them; then delete functions/schemas/.
export * from '../resources/common/fields.js';
export * from '../resources/common/list.js';
