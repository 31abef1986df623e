/**
 * A paid HTTP API with the seller SDK. Against a local service:
 *   npm run dev                                    # the service on http://127.0.0.1:8080
 *   PROBE_ALLOW=127.0.0.1:4021 npm run dev         # (so its probe may reach this loopback seller)
 *   PAY_TO=0xYourAddress npx tsx examples/express-seller.ts
 *   curl -i http://127.0.0.1:4021/weather/paris    # 402 with PAYMENT-REQUIRED + v1 body + describe
 * The first 402 announces the route; the service probes it and lists it:
 *   curl 'http://127.0.0.1:8080/discovery/search?q=weather'
 * Pay with any x402 client (@x402/fetch, x402-fetch) using a wallet funded by `npm run faucet`.
 * In another project: import { createSeller } from 'paid-api-discovery/sdk';
 */
import express from 'express';
import { createSeller } from '../src/sdk/index.js';

const serviceUrl = process.env.SERVICE_URL ?? 'http://127.0.0.1:8080';
const port = Number(process.env.PORT ?? 4021);
const payTo = process.env.PAY_TO ?? '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';

const seller = createSeller({
  serviceUrl,
  payTo,
  network: 'eip155:84532',
  onError: (err) => console.warn(`[seller] ${err.message}`),
});

const app = express();

app.get(
  '/weather/:city',
  seller.paid({
    price: '$0.001',
    describe: {
      title: 'City weather now',
      description: 'Current temperature, wind and sky conditions for a city.',
      tags: ['weather', 'climate'],
      inputs: { city: 'string' },
    },
  }),
  (req, res) => {
    res.json({ city: req.params.city, tempC: 18, sky: 'clear', paidBy: res.locals.x402?.payer });
  },
);

app.post(
  '/summarize',
  express.json(),
  seller.paid({
    amount: '5000', // 0.005 USDC in its smallest unit
    describe: { title: 'Summarize text', description: 'Three-sentence summary of an English text.', tags: ['nlp', 'summarization'], inputs: { text: 'string' } },
  }),
  (req, res) => {
    const text = String(req.body?.text ?? '');
    res.json({ summary: text.split('.').slice(0, 3).join('.').trim() });
  },
);

const server = app.listen(port, '127.0.0.1', () => {
  console.log(`paid API on http://127.0.0.1:${port} (service ${serviceUrl}, payTo ${payTo})`);
});

process.on('SIGINT', () => {
  server.close();
  void seller.close().then(() => process.exit(0));
});
