/**
 * The acceptance policy for supplier-qa: the `verdict` artifact must match its schema, say `pass`,
 * and be about the order and report the delegation asked for. Text in the artifact is never read as
 * an instruction: only these fields, checked against our own request, decide.
 */
import { z } from 'zod';
import type { Part } from '../shared/a2a-types';
import type { Candidate, Decision } from '../shared/acceptance-rule';

export const VerdictSchema = z.object({
  order: z.string().regex(/^[A-Z]\d{4}$/, 'must be an order number like A1042'),
  report: z.string().regex(/^inspection-\d+$/, 'must be a report id like inspection-92'),
  serial: z.string().optional(),
  verdict: z.enum(['pass', 'fail']),
  checks: z.array(z.object({ name: z.string(), result: z.enum(['pass', 'fail']) })).optional(),
});

function asked(request: Part[] | undefined, pattern: RegExp, key: string): string | undefined {
  for (const part of request ?? []) {
    const fromData = (part.data as Record<string, unknown> | undefined)?.[key];
    if (typeof fromData === 'string') return fromData;
    const fromText = part.text ? pattern.exec(part.text)?.[0] : undefined;
    if (fromText) return fromText;
  }
  return undefined;
}

export function supplierVerdict(c: Candidate): Decision {
  const artifact = c.artifacts.find((a) => a.name === 'verdict');
  if (!artifact) return { accepted: false, reasons: ['no artifact named "verdict"'] };
  const data = artifact.parts?.find((p) => p.data !== undefined)?.data;
  if (data === undefined) return { accepted: false, reasons: ['the verdict artifact has no data part (or is too large to check inline)'] };
  const parsed = VerdictSchema.safeParse(data);
  if (!parsed.success) return { accepted: false, reasons: parsed.error.issues.map((i) => `verdict.${i.path.join('.')}: ${i.message}`) };
  const v = parsed.data;
  const reasons: string[] = [];
  const order = asked(c.request, /\b[A-Z]\d{4}\b/, 'order');
  const report = asked(c.request, /\binspection-\d+\b/, 'report');
  if (order && v.order !== order) reasons.push(`verdict is for order ${v.order}, but ${order} was asked about`);
  if (report && v.report !== report) reasons.push(`verdict is for report ${v.report}, but ${report} was asked about`);
  if (v.verdict !== 'pass') reasons.push(`the supplier's verdict is ${v.verdict}`);
  if (v.checks?.some((check) => check.result !== 'pass'))
    reasons.push(
      `failed checks: ${v.checks
        .filter((k) => k.result !== 'pass')
        .map((k) => k.name)
        .join(', ')}`,
    );
  return reasons.length
    ? { accepted: false, reasons }
    : { accepted: true, reasons: [`verdict pass for order ${v.order}, report ${v.report}`] };
}
