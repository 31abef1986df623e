/**
 * Discovery over MCP (/mcp, Streamable HTTP) with the SDK's own client against the real service
 * and the demo catalog: the tools, search, paging with the cursor, one listing, bad arguments.
 * The client validates every structuredContent against the tool's outputSchema itself.
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { seedDemoCatalog } from './support/demoCatalog.js';
import { startService, type ServiceWorld } from './support/sdkWorld.js';

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };

describe('MCP discovery (/mcp)', function () {
  this.timeout(30_000);
  let world: ServiceWorld;
  let client: Client;

  before(async () => {
    world = await startService();
    await seedDemoCatalog(world.h);
    client = new Client({ name: 'discovery-test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${world.service.url}/mcp`)));
  });
  after(async () => {
    await client?.close();
    await world?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
  const http = async (path: string, query: Record<string, string>) => (await request(world.h.app).get(path).query(query).expect(200)).body;

  it('lists the four tools with input and output schemas', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['search_resources', 'list_resources', 'get_resource', 'get_merchant']);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.outputSchema?.type, 'object');
      assert.equal(tool.annotations?.readOnlyHint, true);
    }
    const search = tools.find((t) => t.name === 'search_resources')!;
    assert.deepEqual(search.inputSchema.required, ['q']);
    assert.ok(['maxPrice', 'capability', 'cursor', 'sort', 'explain'].every((p) => p in search.inputSchema.properties!));
  });

  it('search_resources answers what GET /discovery/search answers, in the listing shape', async () => {
    const result = await call('search_resources', { q: 'weather forecast', type: 'mcp', maxPrice: 5000, limit: 3 });
    assert.equal(result.isError, undefined);
    const expected = await http('/discovery/search', { q: 'weather forecast', type: 'mcp', maxPrice: '5000', limit: '3' });
    assert.deepEqual(result.structuredContent.results, expected.results);
    assert.equal(result.structuredContent.results[0].name, 'get_weather_forecast');
    assert.deepEqual(JSON.parse(result.content[0]!.text!), result.structuredContent);
    const explained = await call('search_resources', { q: 'translate', explain: true, limit: 1 });
    assert.equal(typeof explained.structuredContent.results[0].debug.score, 'number');
  });

  it('search_resources and list_resources take payWith (a list) and maxUsd as the HTTP reads do', async () => {
    const args = { q: 'stock quote', payWith: ['base/USDC', 'base-sepolia/USDC'], maxUsd: '0.001' };
    const result = await call('search_resources', args);
    assert.equal(result.isError, undefined);
    const expected = await (await request(world.h.app).get('/discovery/search').query(args).expect(200)).body;
    assert.deepEqual(result.structuredContent.results, expected.results);
    // Base USDC (the demo's real address) has a dollar price: 1000 base units are $0.001, within
    // maxUsd; the daily history's 10000 ($0.01) is not.
    const titles = (r: any[]) => r.map((l) => l.describe?.title ?? l.name);
    assert.ok(titles(result.structuredContent.results).includes('Real-time stock quote'));
    assert.ok(!titles(result.structuredContent.results).includes('Historical daily prices'));
    const holders = await call('list_resources', { payWith: ['base/0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'] });
    assert.deepEqual(titles(holders.structuredContent.results).sort(), ['Historical daily prices', 'Real-time stock quote', 'get_stock_quote']);
    for (const [args, name] of [[{ maxUsd: '0.0000001' }, /maxUsd/], [{ maxUsd: 1e-7 }, /maxUsd/], [{ payWith: ['nowhere/USDC'] }, /payWith/], [{ payWith: 'base/USDC' }, /payWith/]] as const) {
      const bad = await call('list_resources', args);
      assert.equal(bad.isError, true, JSON.stringify(args));
      assert.match(bad.content[0]!.text!, name);
    }
  });

  it('list_resources pages with the cursor through every listing exactly once', async () => {
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const result = await call('list_resources', { limit: 15, ...(cursor ? { cursor } : {}) });
      assert.equal(result.isError, undefined, result.content[0]?.text);
      ids.push(...result.structuredContent.results.map((l: { id: string }) => l.id));
      cursor = result.structuredContent.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    assert.equal(pages, 3);
    assert.equal(ids.length, 42);
    assert.equal(new Set(ids).size, 42);
  });

  it('get_resource returns one listing as GET /discovery/resources/{id} does', async () => {
    const { results } = await http('/discovery/search', { q: 'translate text', limit: '1' });
    const result = await call('get_resource', { id: results[0].id });
    assert.deepEqual(result.structuredContent, (await request(world.h.app).get(`/discovery/resources/${results[0].id}`).expect(200)).body);
    const missing = await call('get_resource', { id: 'lst_000000000000000000000000' });
    assert.equal(missing.isError, true);
    assert.match(missing.content[0]!.text!, /^not_found: No listing lst_000000000000000000000000\./);
  });

  it('bad arguments are tool errors naming the problem, and the server keeps answering', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['search_resources', {}, /^invalid_arguments: q is required/],
      ['search_resources', { q: 'weather', limit: 500 }, /^invalid_arguments: limit must be <= 100/],
      ['search_resources', { q: 'weather', offset: 20 }, /^invalid_arguments: offset is not an accepted argument/],
      ['search_resources', { q: 'weather', maxPrice: '0.005' }, /^invalid_arguments: maxPrice must match pattern/],
      ['search_resources', { q: 'weather', network: 'not-a-network' }, /^invalid_filter_value: .*network.*CAIP-2/],
      ['list_resources', { cursor: 'abc.def' }, /^invalid_cursor: /],
      ['list_resources', { q: 'weather' }, /^invalid_arguments: q is not an accepted argument/],
      ['get_resource', { id: 'nope' }, /^invalid_arguments: id must match pattern/],
    ];
    for (const [tool, args, message] of cases) {
      const result = await call(tool, args);
      assert.equal(result.isError, true, `${tool} ${JSON.stringify(args)}`);
      assert.match(result.content[0]!.text!, message);
    }
    // A cursor is bound to its query: replayed with another filter it is refused.
    const first = await call('search_resources', { q: 'weather', limit: 2 });
    const replay = await call('search_resources', { q: 'weather', limit: 2, type: 'http', cursor: first.structuredContent.nextCursor });
    assert.match(replay.content[0]!.text!, /^invalid_cursor: /);
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool: no_such_tool/);
    assert.equal((await call('search_resources', { q: 'weather', limit: 1 })).isError, undefined);
  });

  it('fuzz: any JSON value for any argument is an answer or a tool error, never a protocol error', async () => {
    const { tools } = await client.listTools();
    const values: unknown[] = [null, true, -1, 1e300, ' ', 'x'.repeat(5000), '\u0000𝔘', [], { $gt: 1 }];
    let calls = 0;
    for (const tool of tools) {
      for (const name of Object.keys(tool.inputSchema.properties ?? {})) {
        for (const value of values) {
          const base = tool.name === 'search_resources' ? { q: 'weather' } : {};
          const result = await call(tool.name, { ...base, [name]: value });
          calls += 1;
          if (result.isError) assert.match(result.content[0]!.text!, /^(invalid_arguments|invalid_filter_value|invalid_cursor|missing_query|not_found): /, `${tool.name} ${name}=${JSON.stringify(value)?.slice(0, 40)}`);
          else assert.ok(Array.isArray(result.structuredContent.results) || result.structuredContent.id, `${tool.name} ${name}`);
        }
      }
    }
    assert.ok(calls > 150);
  });

  it('GET and DELETE /mcp answer 405 problem+json', async () => {
    for (const method of ['get', 'delete'] as const) {
      const res = await request(world.h.app)[method]('/mcp').expect(405).expect('Content-Type', /application\/problem\+json/);
      assert.equal(res.body.code, 'method_not_allowed');
      assert.equal(res.headers.allow, 'POST');
    }
  });
});
