/**
 * Cron schedules as the tutorial parses them, with robfig/cron v3's
 * `cron.ParseStandard`: five fields (minute, hour, day of month, month, day
 * of week) with `*`, `?`, ranges, steps, lists and month and day names, or a
 * descriptor (`@hourly`, `@daily`, `@every 90s`...), and robfig's error texts,
 * which the validating webhook shows to the user. `Next` is robfig's
 * SpecSchedule.Next, including its rule that a restricted day of month and
 * day of week match when either does. One difference: times are UTC (robfig
 * uses the process's local zone, UTC in a container), and a `CRON_TZ=` or
 * `TZ=` prefix other than UTC is refused.
 */
import { parseDuration } from '@operant/runtime';

/** The next activation strictly after `after`, or undefined when none comes within five years. */
export interface Schedule {
  next(after: Date): Date | undefined;
}

interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const minutes: Bounds = { min: 0, max: 59 };
const hours: Bounds = { min: 0, max: 23 };
const dom: Bounds = { min: 1, max: 31 };
const months: Bounds = { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } };
const dow: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

/** The values a field allows, and whether it was `*` or `?` (robfig's starBit). */
interface Field {
  values: Set<number>;
  star: boolean;
}

/** Parses a schedule; throws an Error with robfig/cron's message. */
export function parseStandard(spec: string): Schedule {
  if (spec.length === 0) throw new Error('empty spec string');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const zone = spec.slice(spec.indexOf('=') + 1, space < 0 ? undefined : space);
    if (zone !== 'UTC') throw new Error(`provided bad location ${zone}: this port computes schedules in UTC only`);
    spec = space < 0 ? '' : spec.slice(space).trim();
  }
  if (spec.startsWith('@')) return descriptor(spec);
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute, hour, day, month, weekday] = [field(fields[0]!, minutes), field(fields[1]!, hours), field(fields[2]!, dom), field(fields[3]!, months), field(fields[4]!, dow)];
  return specSchedule({ second: { values: new Set([0]), star: false }, minute, hour, day, month, weekday });
}

function descriptor(spec: string): Schedule {
  const all = (b: Bounds): Field => ({ values: range(b.min, b.max, 1), star: true });
  const first = (b: Bounds): Field => ({ values: new Set([b.min]), star: false });
  const midnight = { second: first({ min: 0, max: 59 }), minute: first(minutes), hour: first(hours) };
  switch (spec) {
    case '@yearly':
    case '@annually':
      return specSchedule({ ...midnight, day: first(dom), month: first(months), weekday: all(dow) });
    case '@monthly':
      return specSchedule({ ...midnight, day: first(dom), month: all(months), weekday: all(dow) });
    case '@weekly':
      return specSchedule({ ...midnight, day: all(dom), month: all(months), weekday: first(dow) });
    case '@daily':
    case '@midnight':
      return specSchedule({ ...midnight, day: all(dom), month: all(months), weekday: all(dow) });
    case '@hourly':
      return specSchedule({ ...midnight, hour: all(hours), day: all(dom), month: all(months), weekday: all(dow) });
  }
  if (spec.startsWith('@every ')) {
    let ms: number;
    try {
      ms = parseDuration(spec.slice('@every '.length));
    } catch (err) {
      throw new Error(`failed to parse duration ${spec}: ${(err as Error).message}`);
    }
    // robfig's Every: at least a second, in whole seconds, counted from the whole second before.
    const delay = Math.max(1000, ms - (ms % 1000));
    return { next: (after) => new Date(Math.floor(after.getTime() / 1000) * 1000 + delay) };
  }
  throw new Error(`unrecognized descriptor: ${spec}`);
}

/** A comma-separated list of ranges (robfig's getField). */
function field(text: string, bounds: Bounds): Field {
  const out: Field = { values: new Set(), star: false };
  for (const expr of text.split(',').filter((e) => e !== '')) {
    const r = rangeOf(expr, bounds);
    r.values.forEach((v) => out.values.add(v));
    out.star ||= r.star;
  }
  return out;
}

/** `*`, `?`, `n`, `a-b`, each with an optional `/step` (robfig's getRange). */
function rangeOf(expr: string, bounds: Bounds): Field {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    [start, end, star] = [bounds.min, bounds.max, true];
  } else {
    start = intOrName(lowAndHigh[0]!, bounds);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = intOrName(lowAndHigh[1]!, bounds);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    // "N/step" means "N-max/step".
    if (lowAndHigh.length === 1) end = bounds.max;
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) throw new Error(`too many slashes: ${expr}`);
  if (start < bounds.min) throw new Error(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  if (end > bounds.max) throw new Error(`end of range (${end}) above maximum (${bounds.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  return { values: range(start, end, step), star };
}

function intOrName(expr: string, bounds: Bounds): number {
  return bounds.names?.[expr.toLowerCase()] ?? mustParseInt(expr);
}

/** Go's strconv.Atoi, with its error text, then robfig's check for negatives. */
function mustParseInt(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const num = Number(expr);
  if (num < 0) throw new Error(`negative number (${num}) not allowed: ${expr}`);
  return num;
}

function range(start: number, end: number, step: number): Set<number> {
  const values = new Set<number>();
  for (let v = start; v <= end; v += step) values.add(v);
  return values;
}

interface Spec {
  second: Field;
  minute: Field;
  hour: Field;
  day: Field;
  month: Field;
  weekday: Field;
}

/** robfig's SpecSchedule.Next, in UTC: find the first matching month, then day, hour, minute and second. */
function specSchedule(s: Spec): Schedule {
  // Either day field unrestricted (`*`): both must match; both restricted: either may.
  const dayMatches = (t: Date): boolean => {
    const d = s.day.values.has(t.getUTCDate());
    const w = s.weekday.values.has(t.getUTCDay());
    return s.day.star || s.weekday.star ? d && w : d || w;
  };
  return {
    next(after) {
      // The upcoming whole second.
      let t = new Date(Math.floor(after.getTime() / 1000) * 1000 + 1000);
      const yearLimit = t.getUTCFullYear() + 5;
      let added = false;
      const reset = (...fields: number[]): void => {
        if (added) return;
        added = true;
        const [y, mo, d = 1, h = 0, mi = 0] = fields;
        t = new Date(Date.UTC(y!, mo!, d, h, mi));
      };
      wrap: for (;;) {
        if (t.getUTCFullYear() > yearLimit) return undefined;
        while (!s.month.values.has(t.getUTCMonth() + 1)) {
          reset(t.getUTCFullYear(), t.getUTCMonth());
          t = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate(), t.getUTCHours(), t.getUTCMinutes()));
          if (t.getUTCMonth() === 0) continue wrap;
        }
        while (!dayMatches(t)) {
          reset(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate());
          t = new Date(t.getTime() + 86_400_000);
          if (t.getUTCDate() === 1) continue wrap;
        }
        while (!s.hour.values.has(t.getUTCHours())) {
          reset(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate(), t.getUTCHours());
          t = new Date(t.getTime() + 3_600_000);
          if (t.getUTCHours() === 0) continue wrap;
        }
        while (!s.minute.values.has(t.getUTCMinutes())) {
          reset(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate(), t.getUTCHours(), t.getUTCMinutes());
          t = new Date(t.getTime() + 60_000);
          if (t.getUTCMinutes() === 0) continue wrap;
        }
        while (!s.second.values.has(t.getUTCSeconds())) {
          if (!added) added = true; // t is already a whole second
          t = new Date(t.getTime() + 1000);
          if (t.getUTCSeconds() === 0) continue wrap;
        }
        return t;
      }
    },
  };
}
