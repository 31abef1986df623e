import assert from 'node:assert/strict';
import { MAX_NEEDS, splitNeeds } from '../../src/search/taskNeeds.js';

describe('unit: a task query split into its needs (search/taskNeeds.ts)', () => {
  it('splits at sentences, connectives and clause openers, in the order written', () => {
    assert.deepEqual(splitNeeds('I need to know if it will rain in Lisbon tomorrow and convert 20 euros to dollars'), [
      'I need to know if it will rain in Lisbon tomorrow',
      'convert 20 euros to dollars',
    ]);
    assert.deepEqual(splitNeeds("I'm planning a weekend hike near Zermatt; check if it will rain, and how do I get there from Geneva by train?"), [
      "I'm planning a weekend hike near Zermatt",
      'check if it will rain',
      'how do I get there from Geneva by train?',
    ]);
    assert.deepEqual(splitNeeds('Transcribe the interview recording, then translate the transcript into German.'), ['Transcribe the interview recording', 'translate the transcript into German.']);
  });

  it('never splits a short query, and keeps pieces without two content words with the need before them', () => {
    for (const q of ['weather forecast', 'convert euros to dollars', 'rain and wind forecast for Bern']) assert.deepEqual(splitNeeds(q), [q]);
    const one = 'How much fresh snow is there in St. Anton right now, and for 6 people?';
    assert.deepEqual(splitNeeds(one), [one]);
  });

  it('a list of orders is at most MAX_NEEDS needs; nothing is lost', () => {
    const q = 'Find the hotel, book the table, call the taxi, email the plan, print the tickets and pay the deposit';
    const needs = splitNeeds(q);
    assert.equal(needs.length, MAX_NEEDS);
    assert.deepEqual(needs.join(' ').match(/\w+/g), q.match(/\w+/g));
  });
});
