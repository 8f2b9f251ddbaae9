/**
 * Cron schedules as a CronJob's `spec.schedule` holds them, read the way kube
 * reads them (robfig/cron's standard parser): five fields (minute, hour, day
 * of month, month, day of week) with `*`, `?`, ranges, steps, lists and
 * month/weekday names, or one of the descriptors `@yearly`, `@annually`,
 * `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`, `@every <duration>`.
 * Errors carry robfig's wording, which kube-apiserver returns in its 422s.
 */

/** A parsed cron schedule. */
export interface CronSchedule {
  /**
   * The first activation strictly after `afterMs` (epoch ms), in `timeZone`
   * (an IANA name; default UTC), or undefined when none comes within five years.
   */
  next(afterMs: number, timeZone?: string): number | undefined;
}

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const monthNames: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const dayNames: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const fieldBounds: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: monthNames },
  { min: 0, max: 6, names: dayNames },
];

const descriptors: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** One field: the allowed values, and whether it was written as `*` or `?` (which matters for day matching). */
interface Field {
  values: Set<number>;
  star: boolean;
}

function parseNumber(text: string, bounds: Bounds): number {
  const named = bounds.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const n = Number.parseInt(text, 10);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${text}`);
  return n;
}

function parseRange(expr: string, bounds: Bounds): { values: number[]; star: boolean } {
  const [rangePart, stepPart, extra] = expr.split('/');
  if (extra !== undefined) throw new Error(`too many slashes: ${expr}`);
  let start: number;
  let end: number;
  let star = false;
  if (rangePart === '*' || rangePart === '?') {
    start = bounds.min;
    end = bounds.max;
    star = stepPart === undefined;
  } else {
    const [lo, hi, more] = rangePart.split('-');
    if (more !== undefined) throw new Error(`too many hyphens: ${expr}`);
    start = parseNumber(lo, bounds);
    end = hi === undefined ? start : parseNumber(hi, bounds);
  }
  let step = 1;
  if (stepPart !== undefined) {
    step = parseNumber(stepPart, bounds);
    // robfig: "N/step" means N to the maximum.
    if (!rangePart.includes('-') && rangePart !== '*' && rangePart !== '?') end = bounds.max;
  }
  if (start < bounds.min) throw new Error(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  if (end > bounds.max) throw new Error(`end of range (${end}) above maximum (${bounds.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  const values: number[] = [];
  for (let v = start; v <= end; v += step) values.push(v);
  return { values, star };
}

function parseField(text: string, bounds: Bounds): Field {
  const values = new Set<number>();
  let star = false;
  for (const part of text.split(',')) {
    const r = parseRange(part, bounds);
    r.values.forEach((v) => values.add(v));
    star ||= r.star;
  }
  return { values, star };
}

/** Go's time.ParseDuration for the units `@every` takes (h, m, s, ms). */
function parseEvery(text: string): number {
  const re = /(\d+(?:\.\d+)?)(h|ms|m|s)/g;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let total = 0;
  let consumed = '';
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * unit[m[2]];
    consumed += m[0];
  }
  if (consumed !== text || text === '') throw new Error(`failed to parse duration @every ${text}: time: invalid duration ${JSON.stringify(text)}`);
  // robfig rounds an interval below a second up to one second, and drops sub-second parts.
  return Math.max(1000, Math.floor(total / 1000) * 1000);
}

/** The wall-clock fields of an instant in a time zone. */
function wallClock(ms: number, timeZone: string): { year: number; month: number; day: number; hour: number; minute: number; weekday: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    weekday: 'short',
  }).formatToParts(new Date(ms));
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return {
    year: Number(get('year')),
    month: Number(get('month')),
    day: Number(get('day')),
    hour: Number(get('hour')),
    minute: Number(get('minute')),
    weekday: dayNames[get('weekday').toLowerCase()] ?? 0,
  };
}

/** The offset (ms) of `timeZone` from UTC at the instant `ms`. */
function zoneOffset(ms: number, timeZone: string): number {
  if (timeZone === 'UTC') return 0;
  const w = wallClock(ms, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
  return asUtc - Math.floor(ms / 60_000) * 60_000;
}

class FieldSchedule implements CronSchedule {
  constructor(private readonly fields: Field[]) {}

  private dayMatches(d: Date): boolean {
    const [, , dom, , dow] = this.fields;
    const domMatch = dom.values.has(d.getUTCDate());
    const dowMatch = dow.values.has(d.getUTCDay());
    // robfig: with either day field a star, both must match; otherwise either may.
    return dom.star || dow.star ? domMatch && dowMatch : domMatch || dowMatch;
  }

  next(afterMs: number, timeZone = 'UTC'): number | undefined {
    const [minute, hour, , month] = this.fields;
    // Search in wall-clock time (a Date read through its UTC getters), then map back to an instant.
    const offset = zoneOffset(afterMs, timeZone);
    const t = new Date(Math.floor((afterMs + offset) / 60_000) * 60_000 + 60_000);
    const limit = t.getTime() + 5 * 366 * 86_400_000;
    while (t.getTime() < limit) {
      if (!month.values.has(t.getUTCMonth() + 1)) {
        t.setUTCMonth(t.getUTCMonth() + 1, 1);
        t.setUTCHours(0, 0, 0, 0);
        continue;
      }
      if (!this.dayMatches(t)) {
        t.setUTCDate(t.getUTCDate() + 1);
        t.setUTCHours(0, 0, 0, 0);
        continue;
      }
      if (!hour.values.has(t.getUTCHours())) {
        t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
        continue;
      }
      if (!minute.values.has(t.getUTCMinutes())) {
        t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
        continue;
      }
      const wall = t.getTime();
      let instant = wall - zoneOffset(wall - offset, timeZone);
      if (instant <= afterMs) instant = wall - offset;
      if (instant > afterMs) return instant;
      t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
    }
    return undefined;
  }
}

class EverySchedule implements CronSchedule {
  constructor(private readonly intervalMs: number) {}

  next(afterMs: number): number {
    // robfig: the next whole second after `after`, plus the interval.
    return Math.floor(afterMs / 1000) * 1000 + this.intervalMs;
  }
}

/**
 * Parses a cron schedule as kube's CronJob does (robfig/cron `ParseStandard`);
 * throws an Error with robfig's message when it is not one.
 *
 * @example
 * ```ts
 * import { parseCronSchedule } from '@operant/apimachinery/cron';
 *
 * const s = parseCronSchedule('*\/5 * * * *');
 * new Date(s.next(Date.parse('2024-05-01T10:02:00Z'))!).toISOString(); // '2024-05-01T10:05:00.000Z'
 * ```
 */
export function parseCronSchedule(spec: string): CronSchedule {
  let text = spec.trim();
  if (text === '') throw new Error('empty spec string');
  if (text.startsWith('TZ=') || text.startsWith('CRON_TZ=')) {
    const space = text.indexOf(' ');
    const zone = text.slice(text.indexOf('=') + 1, space < 0 ? undefined : space);
    if (!isTimeZone(zone)) throw new Error(`provided bad location ${zone}: unknown time zone ${zone}`);
    text = space < 0 ? '' : text.slice(space).trim();
  }
  if (text.startsWith('@')) {
    if (text.startsWith('@every ')) return new EverySchedule(parseEvery(text.slice('@every '.length).trim()));
    const expanded = descriptors[text];
    if (!expanded) throw new Error(`unrecognized descriptor: ${text}`);
    text = expanded;
  }
  const parts = text.split(/\s+/).filter((p) => p !== '');
  if (parts.length !== 5) throw new Error(`expected exactly 5 fields, found ${parts.length}: [${parts.join(' ')}]`);
  return new FieldSchedule(parts.map((p, i) => parseField(p, fieldBounds[i])));
}

/** Whether `name` is an IANA time zone this runtime knows (as Go's time.LoadLocation would). */
export function isTimeZone(name: string): boolean {
  if (name === '' || name === 'Local') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
