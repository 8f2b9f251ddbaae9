/**
 * What `kubectl get` prints, without kubectl: the server's Table for a list
 * (the CRD's printer columns, computed by the API server, AGE included),
 * laid out as kubectl's tab writer does (columns at least 6 wide, 3 spaces of
 * padding, the last column unpadded; priority > 0 columns only with -o wide).
 */
import { request } from 'node:https';

interface Table {
  columnDefinitions: Array<{ name: string; priority?: number }>;
  rows: Array<{ cells: unknown[] }>;
}

/** GETs `path` as a meta.k8s.io/v1 Table from the server at `url`, trusting `caPem`, as `token`. */
export function getTable(server: { url: string; caPem: string; adminToken: string }, path: string): Promise<Table> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), {
      ca: server.caPem,
      headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io', authorization: `Bearer ${server.adminToken}` },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${res.statusCode} ${body}`));
        else resolve(JSON.parse(body) as Table);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The table as `kubectl get` lays it out, one string per line. */
export function formatTable(table: Table): string[] {
  const shown = table.columnDefinitions.map((c, i) => ({ name: c.name.toUpperCase(), i, priority: c.priority ?? 0 })).filter((c) => c.priority === 0);
  const rows = [shown.map((c) => c.name), ...table.rows.map((r) => shown.map((c) => cellText(r.cells[c.i])))];
  const widths = shown.map((_, col) => Math.max(6, ...rows.map((r) => r[col]!.length + 3)));
  return rows.map((r) => r.map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col]!))).join(''));
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '<none>';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
