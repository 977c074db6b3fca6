import { defineImport } from '../kind-list.js';
import { appList } from './list.js';

/** Whether a live status is one a stack may declare (0 draft, 1 enabled, 2 disabled); the platform sets the others. */
const isDeclarableStatus = (status: number | undefined): status is 0 | 1 | 2 => status === 0 || status === 1 || status === 2;

/**
 * Importing FastEdge apps: every app of the account, each pinned by its id, with its name and
 * the fields the app list shows (binary, a declarable status, comment); env and response headers
 * are not in the list, so they are left unmanaged. Named after the app.
 */
export const appImport = defineImport('fastedge_app', {
  scope: 'account',
  list: appList,
  itemId: (app) => String(app.id),
  attributes: (app) => ({
    app_id: app.id,
    name: app.name,
    ...(app.binary === undefined ? {} : { binary: app.binary }),
    ...(isDeclarableStatus(app.status) ? { status: app.status } : {}),
    ...(app.comment ? { comment: app.comment } : {}),
  }),
  blockName: (app) => app.name,
  facts: (app) => [['name', app.name]],
});
