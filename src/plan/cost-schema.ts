import { z } from 'zod';

const quote = z.strictObject({
  status: z.enum(['show', 'hide', 'error']),
  currency: z.string().nullable(),
  per_month: z.number().nullable(),
  without_discount_per_month: z.number().nullable(),
  discount_percent: z.number().nullable(),
  tax_percent: z.number().nullable(),
});

/** The `cost` section of a plan file (PlanCost), exactly: a plan file's unknown keys are refused. */
export const planCostSchema = z.strictObject({
  lines: z.array(
    z.strictObject({
      addresses: z.array(z.string()).min(1),
      type: z.string(),
      action: z.enum(['create', 'update', 'replace']),
      before: quote.optional(),
      after: quote.optional(),
      problem: z.string().optional(),
    }),
  ),
  totals: z.array(z.strictObject({ currency: z.string(), before: z.number(), after: z.number(), difference: z.number() })),
  not_priced: z.array(z.string()),
  hidden: z.boolean(),
  unknown: z.number(),
});
