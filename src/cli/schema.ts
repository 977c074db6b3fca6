import { buildStackJsonSchema } from '../config/json-schema.js';
import { defineCommand } from './command.js';
import { ExitCode } from './io.js';

/**
 * `edgeform schema`: print the JSON Schema (draft 2020-12) of the stack file, generated
 * from the validator's own zod schemas. The committed edgeform.schema.json is this output.
 */
export const schemaCommand = defineCommand<Record<string, never>>({
  builder: (y) =>
    y.epilog(
      'Regenerate the committed copy with: node dist/bin/edgeform.js schema > edgeform.schema.json (installed, the package holds it: node_modules/edgeform/edgeform.schema.json)',
    ),
  async run(_args, io) {
    io.out(`${JSON.stringify(buildStackJsonSchema(), null, 2)}\n`);
    return ExitCode.ok;
  },
});
