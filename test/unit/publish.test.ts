import assert from 'node:assert/strict';
import { Forbidden, InvalidInput, NotFound } from '../../src/core/errors.js';
import { PublishService } from '../../src/publish/publishService.js';
import { validatePublishBody } from '../../src/publish/publishSchema.js';
import type { SellerToken } from '../../src/publish/sellerTokens.js';
import { mcpInput } from '../support/listings.js';
import { manualClock } from './fakes/clock.js';
import { fakeCatalogWriter } from './fakes/catalogWriter.js';
import { fakePublishOwners } from './fakes/publishOwners.js';

const token = (id: string, hosts: string[]): SellerToken => ({ id, hosts, createdAt: '2026-11-26T00:00:00.000Z' });
const alice = token('tok_alice', ['tools.example']);
const bob = token('tok_bob', ['*.example']);

function world() {
  const clock = manualClock();
  const writer = fakeCatalogWriter(clock.now);
  const { owners, byListing } = fakePublishOwners();
  const lookup = { get: async (id: string) => writer.documents.get(id) };
  return { clock, writer, byListing, service: new PublishService({ writer, owners, lookup }) };
}

describe('unit: publishing MCP tools', () => {
  it('the body: MCP only, no service-owned fields, every other field error in the same answer', () => {
    const result = validatePublishBody({ ...mcpInput(), type: 'http', id: 'lst_x', signals: {}, name: 'bad name' });
    assert.equal(result.ok, false);
    assert.deepEqual(!result.ok && result.errors.map((e) => e.path).sort(), ['id', 'name', 'signals', 'type']);
    assert.match(!result.ok ? result.errors.find((e) => e.path === 'type')!.message : '', /POST \/discovery\/announce/);
    assert.deepEqual(validatePublishBody('x'), { ok: false, errors: [{ path: '(root)', message: 'must be a JSON object (send Content-Type: application/json)' }] });
    assert.equal(validatePublishBody(mcpInput()).ok, true);
  });

  it('publishes for a bound host: created first, then updated, owned by the token', async () => {
    const { service, writer, byListing } = world();
    const first = await service.publish(alice, mcpInput());
    assert.equal(first.created, true);
    assert.equal(first.listing.resource, 'mcp://tools.example/translate_text');
    assert.equal(writer.documents.get(first.listing.id)?.owner, 'tok_alice');
    assert.equal(byListing.get(first.listing.id), 'tok_alice');
    assert.equal((await service.publish(alice, mcpInput({ description: 'Now better' }))).created, false);
  });

  it('a republish shows the signals the store keeps, not zeros', async () => {
    const { service, writer } = world();
    const { listing } = await service.publish(alice, mcpInput());
    await writer.updateSignals([{ id: listing.id, signals: { settleCount7d: 5, rejectionRate7d: 0 } }]);
    assert.equal((await service.publish(alice, mcpInput())).listing.signals.settleCount7d, 5);
  });

  it('refuses a host the token is not bound to (403) and an invalid listing (400 with every field)', async () => {
    const { service, writer } = world();
    await assert.rejects(service.publish(alice, mcpInput({ resource: 'mcp://elsewhere.example/translate_text' })), Forbidden);
    await assert.rejects(service.publish(alice, { type: 'mcp' }), (err: unknown) => err instanceof InvalidInput && err.code === 'invalid_listing' && err.fieldErrors.length >= 4);
    assert.equal(writer.calls.length, 0, 'nothing was written');
  });

  it('unpublish: only the owner; unknown ids are 404, another seller\'s 403', async () => {
    const { service, writer, byListing } = world();
    const { listing } = await service.publish(alice, mcpInput());
    await assert.rejects(service.unpublish(bob, listing.id), Forbidden);
    await assert.rejects(service.unpublish(alice, 'lst_000000000000000000000000'), NotFound);
    await assert.rejects(service.unpublish(alice, '../etc'), NotFound);
    await service.unpublish(alice, listing.id);
    assert.deepEqual(writer.calls.at(-1), { op: 'remove', id: listing.id, reason: 'unpublished' });
    assert.equal(byListing.has(listing.id), false);
    await assert.rejects(service.unpublish(alice, listing.id), NotFound, 'removed and without owner: gone');
  });

  it('a listing that came from elsewhere (import, traffic) cannot be unpublished by a seller', async () => {
    const { service, writer } = world();
    const { id } = await writer.upsert(mcpInput(), { source: 'import' });
    await assert.rejects(service.unpublish(alice, id), Forbidden);
  });

  it('a rotated token bound to the host takes the listing over', async () => {
    const { service, byListing } = world();
    const { listing } = await service.publish(alice, mcpInput());
    const rotated = token('tok_alice2', ['tools.example']);
    await service.publish(rotated, mcpInput());
    assert.equal(byListing.get(listing.id), 'tok_alice2');
    await assert.rejects(service.unpublish(alice, listing.id), Forbidden);
  });
});
