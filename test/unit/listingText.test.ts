import assert from 'node:assert/strict';
import { embeddedTextHash, listingText, RETIRED_TEXT_HASHES, routeWords } from '../../src/semantic/listingText.js';

describe('unit: the text a listing is embedded as (semantic/listingText.ts)', () => {
  it("an endpoint described in no words is embedded as its route's words, versions and 'api' left out, abbreviations written out", () => {
    assert.equal(routeWords('https://climadata.example/v2/conditions/current/{lat},{lon}'), 'conditions current latitude longitude');
    assert.equal(routeWords('https://pricetrail.example/api/history/{asin}'), 'history asin');
    assert.equal(routeWords('https://docs.example/v1/convert/docx/pdf?x=1#top'), 'convert docx pdf');
    assert.equal(routeWords('https://paid.example/x402/weather/:city'), 'weather city');
    assert.equal(listingText({ resource: 'https://rank.example/v1/backlinks/{domainName}' }), 'backlinks domain name');
  });

  it("a route with no word falls back to the host's words, then to the resource itself: no listing's text is empty", () => {
    assert.equal(routeWords('https://weather-now.example:8443/'), 'weather now');
    assert.equal(routeWords('https://api.example/v1/2'), 'https://api.example/v1/2');
    for (const resource of ['https://x.io', 'https://1.2.3.4/', 'https://a.example/v9', 'mcp://a.example/t']) {
      assert.notEqual(listingText({ resource }).trim(), '', resource);
      assert.ok(!RETIRED_TEXT_HASHES.includes(embeddedTextHash({ resource })), resource);
    }
  });

  it('a "2" between two words of a name or a route is "to"; between single letters it stays (b2b, p2p)', () => {
    assert.equal(listingText({ resource: 'mcp://t.example/addr2coords', name: 'addr2coords', description: '' }), 'address to coordinates');
    assert.equal(listingText({ resource: 'mcp://t.example/img2txt', name: 'img2txt' }), 'image to txt');
    assert.equal(listingText({ resource: 'mcp://t.example/b2b_leads', name: 'b2b_leads' }), 'b2b leads');
    assert.equal(routeWords('https://docs.example/v1/html2pdf/{p2pId}'), 'html to pdf p2p id');
  });

  it('a title or a description is the text, as before: the route is not added, so their vectors stay valid', () => {
    const resource = 'https://svc.example/v1/forecast/{lat}/{lon}';
    assert.equal(listingText({ resource, describe: { title: 'Point forecast', description: 'Hourly forecast.', tags: ['weather'] } }), 'Point forecast. Hourly forecast.. weather');
    assert.equal(listingText({ resource, describe: { description: 'Hourly forecast' } }), 'Hourly forecast');
    assert.equal(listingText({ resource: 'mcp://t.example/get_weather', name: 'get_weather', description: '' }), 'get weather');
    assert.equal(listingText({ resource, describe: { tags: ['forecast'] } }), 'forecast latitude longitude. forecast');
  });
});
