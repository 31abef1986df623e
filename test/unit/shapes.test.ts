import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import formatsModule from 'ajv-formats';
import type { FromSchema } from 'json-schema-to-ts';
import { EMPTY_SIGNALS, listingResponseSchema, signalsResponseSchema, type Listing, type Signals } from '../../src/shapes/listing.js';

/**
 * `Signals` is the one response type written out instead of derived (the schema keeps the input's
 * nullable members); these checks fail when the type and the schema drift apart.
 */
type SchemaSignals = NonNullable<FromSchema<typeof signalsResponseSchema>>;
/** Compiles only when both sides name the same members and every Signals value fits the schema. */
const sameMembers: [keyof Signals] extends [keyof SchemaSignals] ? ([keyof SchemaSignals] extends [keyof Signals] ? true : false) : false = true;

type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats = ((formatsModule as unknown as { default?: FormatsPlugin }).default ?? formatsModule) as unknown as FormatsPlugin;
const ajv = new Ajv({ strict: false });
addFormats(ajv);

describe('unit: wire shapes', () => {
  it('the Signals type and the response schema name the same members', () => {
    assert.equal(sameMembers, true);
    const required = [...signalsResponseSchema.required].sort();
    const optional = Object.keys(signalsResponseSchema.properties).filter((name) => !required.includes(name as never)).sort();
    // The members Signals requires are the ones the schema requires (keys of a zero-signals value).
    assert.deepEqual(Object.keys(EMPTY_SIGNALS).sort(), required);
    assert.deepEqual(optional, ['health', 'largestPayerShare7d', 'lastSettled', 'medianSettledAmount7d', 'settleCount30d', 'uniquePayers30d', 'uniquePayers7d']);
  });

  it('listings built with the derived types pass the response schema', () => {
    const validate = ajv.compile(listingResponseSchema);
    const signals: Signals = { settleCount7d: 3, rejectionRate7d: 0.5, lastSettled: '2026-11-20T13:04:54.456Z', medianSettledAmount7d: '12' };
    // Compiles only while every Signals value is one the schema's type admits.
    const schemaView: SchemaSignals = signals;
    assert.equal(schemaView, signals);
    const payment = { scheme: 'exact', network: 'eip155:84532', asset: '0xA', amount: '1000' } as const;
    const listings: Listing[] = [
      { id: 'lst_85340d09b17cee659a62915f', type: 'http', resource: 'https://a.example/x', payment, describe: { tags: ['t'] }, signals, provenance: { imported: { source: 'import', at: '2026-11-20T13:04:54.456Z' } } },
      {
        id: 'lst_1807203cacfc892f4b409a22',
        type: 'mcp',
        resource: 'mcp://a.example/tool',
        name: 'tool',
        description: 'A tool.',
        inputSchema: { type: 'object' },
        provenance: { published: { via: 'sdk', at: '2026-11-20T13:04:54.456Z' }, settled: { first: '2026-11-19T10:00:00.000Z', last: '2026-11-20T13:04:54.456Z' } },
        payment,
        signals: EMPTY_SIGNALS,
      },
    ];
    for (const listing of listings) assert.equal(validate(listing), true, JSON.stringify(validate.errors));
    assert.equal(validate({ ...listings[0], signals: { ...signals, extra: 1 } }), false);
  });
});
