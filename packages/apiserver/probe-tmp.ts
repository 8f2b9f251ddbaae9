import { startApiServer } from '@operant/apiserver';
import { request } from 'node:https';
const s = await startApiServer({ port: 0 });
function req(method: string, path: string, body?: string | Buffer, headers: Record<string,string> = {}): Promise<{code:number, headers:any, body:string}> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, s.url);
    const r = request(u, { method, ca: s.caPem, headers: { authorization: `Bearer ${s.adminToken}`, ...(body !== undefined ? {'content-type':'application/json'} : {}), ...headers } }, (res) => {
      const chunks: Buffer[] = []; res.on('data', (c) => chunks.push(c)); res.on('end', () => resolve({ code: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    r.on('error', reject); if (body !== undefined) r.write(body); r.end();
  });
}
const cases: Array<[string, string, string?, Record<string,string>?]> = JSON.parse(process.argv[2]);
for (const [m, p, b, h] of cases) {
  const r = await req(m, p, b, h ?? {});
  console.log(m, p, '->', r.code, r.headers.warning ?? '', r.body.slice(0, 600));
}
await s.stop();
