// A refusal in a form's own words. The server names what it refused in the
// API's terms ("body.body must NOT have more than 20000 characters", "slug
// garden exists"); a person filled in fields labelled "Description" and
// "Address". Each form says which label stands for which field it sends, and
// what a refusal particular to it means; everything else is shown as it came.
// No imports: test/web-form-errors.test.ts runs this file in Node against the
// details a real server sends.

/** A refusal as the page holds it (`ApiError`): status, `Atrium-Error` code, detail. */
export interface Refusal {
  status: number;
  code?: string;
  detail: string;
}

export interface FormWords {
  /** The label a person sees for each field of the request body, by its API name (`request.url` inside an object). */
  fields: Record<string, string>;
  /** This form's own sentence for a refusal, by its `Atrium-Error` code (given the detail, to name what clashed). */
  refusals?: Record<string, string | ((detail: string) => string)>;
}

/** The rules Ajv states, as a person would: "must NOT have more than 20000 characters" → "must be at most 20000 characters". */
const RULES: Array<[RegExp, (...found: string[]) => string]> = [
  [/^must NOT have more than (\d+) characters?$/, (n) => `must be at most ${n} characters`],
  [/^must NOT have fewer than (\d+) characters?$/, (n) => (n === '1' ? 'must be filled in' : `must be at least ${n} characters`)],
  [/^must NOT have more than (\d+) items?$/, (n) => `may hold at most ${n}`],
  [/^must NOT have fewer than (\d+) items?$/, (n) => `needs at least ${n}`],
  [/^must be <= (\d+)$/, (n) => `must be at most ${n}`],
  [/^must be >= (\d+)$/, (n) => `must be at least ${n}`],
  [/^must match format "(?:idn-)?email"$/, () => 'must be an e-mail address, like name@example.org'],
  [/^must match format "uri"$/, () => 'must be a full web address, like https://example.org/hook'],
];

/** The label of a field path (`request.url`), or of the nearest labelled field it is inside. */
function labelOf(path: string, fields: Record<string, string>): string | undefined {
  const parts = path.split('.');
  for (let n = parts.length; n > 0; n--) {
    const label = fields[parts.slice(0, n).join('.')];
    if (label) return label;
  }
  return undefined;
}

const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * What to show for a refused form. A code the form has words for gets those
 * words. An invalid field the detail starts with (`body.<field> must…`,
 * `<field>: …`) is named by the form's label, and an Ajv rule said as a
 * person would; anything else keeps the server's detail.
 */
export function formErrorText(refusal: Refusal, words: FormWords): string {
  const own = refusal.code ? words.refusals?.[refusal.code] : undefined;
  if (own !== undefined) return typeof own === 'string' ? own : own(refusal.detail);
  if (refusal.status !== 422) return refusal.detail;
  const missing = /^body: missing required field "(\w+)"$/.exec(refusal.detail);
  if (missing) {
    const label = words.fields[missing[1]!];
    return label ? `Fill in ${label}.` : refusal.detail;
  }
  // Credential refusals start with their code, as they did before codes travelled in `Atrium-Error`.
  const detail = refusal.code && refusal.detail.startsWith(`${refusal.code}: `) ? refusal.detail.slice(refusal.code.length + 2) : refusal.detail;
  const named = /^(?:body\.)?(\w+(?:\.\w+)*)(:?) (.*)$/.exec(detail);
  const label = named ? labelOf(named[1]!, words.fields) : undefined;
  if (!named || !label) return refusal.detail;
  const rest = named[3]!;
  if (named[2]) return sentence(`${label}: ${rest}`);
  for (const [pattern, say] of RULES) {
    const found = pattern.exec(rest);
    if (found) return sentence(`${label} ${say(...found.slice(1))}`);
  }
  return sentence(`${label} ${rest}`);
}
