/**
 * undici's connection Pool with its `request` method, and nothing else of undici. Its index
 * (`import { Pool } from 'undici'`) evaluates the whole package first: fetch, WebSocket,
 * EventSource, the cache, mock and proxy agents and the node: built-ins they load, about 70 ms of
 * CPU at the start of every command that talks to the platform, for one class the client uses.
 * The one thing the index does that the Pool needs is done here the same way: it installs the
 * request API on Dispatcher's prototype (`Object.assign(Dispatcher.prototype, api)` in
 * undici/index.js; `request` is the only method of it the client calls). undici declares no
 * `exports` map, so these paths are its published files; test/integration/api/undici-pool.test.ts checks that
 * they are the same classes and method the index gives.
 */
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import request from 'undici/lib/api/api-request.js';

if (Dispatcher.prototype.request === undefined) Dispatcher.prototype.request = request;

export { Pool };
