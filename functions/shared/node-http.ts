/**
 * node:http as its CommonJS module. An ESM `import` of node:http builds a module namespace from
 * every export, which reads its lazy WebSocket/EventSource/... getters and so loads Node's bundled
 * undici: about 50 ms of every cold start of a bundle that imports it (measured on Node 24 here;
 * the AWS SDK `require`s node:http and pays nothing of it). process.getBuiltinModule returns the
 * module without building that namespace.
 */
export const http = process.getBuiltinModule('node:http');
