import assert from 'node:assert/strict';
import { asksForSomething, coverNeeds, MAX_NEEDS, splitNeeds } from '../../src/search/taskNeeds.js';

describe('unit: a task query split into its needs (search/taskNeeds.ts)', () => {
  it('splits at sentences, connectives and clause openers, in the order written', () => {
    assert.deepEqual(splitNeeds('I need to know if it will rain in Lisbon tomorrow and convert 20 euros to dollars'), [
      'I need to know if it will rain in Lisbon tomorrow',
      'convert 20 euros to dollars',
    ]);
    assert.deepEqual(splitNeeds("I'm planning a weekend hike near Zermatt; check if it will rain, and how do I get there from Geneva by train?"), [
      // A piece that only sets the scene is no need of its own: it joins the need after it.
      "I'm planning a weekend hike near Zermatt check if it will rain",
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

describe('unit: the first results of a task cover every need before one repeats (coverNeeds)', () => {
  it('takes each need\'s best in turn, then the second best of each', () => {
    assert.deepEqual(coverNeeds([['a1', 'a2', 'a3'], ['b1', 'b2'], ['c1']], 5), [
      { id: 'a1', need: 0 }, { id: 'b1', need: 1 }, { id: 'c1', need: 2 }, { id: 'a2', need: 0 }, { id: 'b2', need: 1 },
    ]);
  });

  it('a listing is shown once; a need whose best is already shown is covered by it and waits for the next round', () => {
    assert.deepEqual(coverNeeds([['x', 'a2'], ['x', 'b2'], ['c1']], 4), [
      { id: 'x', need: 0 }, { id: 'c1', need: 2 }, { id: 'a2', need: 0 }, { id: 'b2', need: 1 },
    ]);
    assert.deepEqual(coverNeeds([['a'], []], 5), [{ id: 'a', need: 0 }]);
  });
});

describe('unit: a piece that asks for something, and one that sets the scene', () => {
  it('questions, orders and wishes ask; statements about oneself do not', () => {
    for (const ask of ['what will the weather be', 'find us a hotel in Kreuzberg', 'I need a transcript', "we'd like a table", 'and also book the taxi']) assert.equal(asksForSomething(ask), true, ask);
    for (const scene of ['We land in Zurich on Friday', 'My son has bad hay fever', 'Island hopping']) assert.equal(asksForSomething(scene), false, scene);
  });
});
