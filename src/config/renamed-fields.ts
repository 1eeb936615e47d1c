/**
 * Config fields that were renamed. The old name is still read, with a warning that names the new
 * one, so a config written for the release before keeps working; the rule goes once its `until`
 * release is out (the support window, docs/operations.md). None is pending in 1.0.
 */

export interface Renamed {
  /** Where the field lives: in each entry of this map-valued section. */
  section: 'agents';
  from: string;
  to: string;
  /** The release that stops reading the old name: one minor version after the rename. */
  until: string;
}

const RENAMED: Renamed[] = [];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The raw config with renamed fields under their new names (the input is not changed), and a warning for each. */
export function renameDeprecatedFields(raw: unknown, rules: readonly Renamed[] = RENAMED): { raw: unknown; warnings: string[] } {
  if (!isObject(raw)) return { raw, warnings: [] };
  const warnings: string[] = [];
  const out: Record<string, unknown> = { ...raw };
  for (const rule of rules) {
    const section = out[rule.section];
    if (!isObject(section)) continue;
    const renamed: Record<string, unknown> = { ...section };
    for (const [name, entry] of Object.entries(section)) {
      if (!isObject(entry) || !(rule.from in entry)) continue;
      const field = `${rule.section}.${name}.${rule.from}`;
      const { [rule.from]: value, ...rest } = entry;
      if (rule.to in entry) {
        warnings.push(`${field} is ignored: ${rule.to} is set too; remove ${rule.from}`);
        renamed[name] = rest;
      } else {
        warnings.push(`${field} is deprecated: rename it to ${rule.to} (same meaning; the old name is read until ${rule.until})`);
        renamed[name] = { ...rest, [rule.to]: value };
      }
    }
    out[rule.section] = renamed;
  }
  return { raw: out, warnings };
}
