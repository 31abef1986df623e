// import-x/no-cycle skips `import type` edges and has no option to follow them (4.18). The house
// (docs/architecture.md) allows no import circle at all: a type-only circle still ties two modules
// so that neither can be read, moved or tested alone. This module makes no-cycle see type edges as
// ordinary ones: `parseForESLint` is the parser import-x reads other modules with (the
// `import-x/parsers` setting), and `followTypeImports` wraps the rule for the file being linted.
// It is CommonJS because import-x loads that parser with require().
'use strict';
const tsParser = require('@typescript-eslint/parser');

/** The declaration as a value import or export (a shallow copy; locations stay for reports). */
function asValueEdge(node) {
  const specifiers = node.specifiers?.map((specifier) => ({ ...specifier, importKind: 'value', exportKind: 'value' }));
  return { ...node, importKind: 'value', exportKind: 'value', ...(specifiers ? { specifiers } : {}) };
}

const EDGE_NODES = new Set(['ImportDeclaration', 'ExportNamedDeclaration', 'ExportAllDeclaration', 'TSImportEqualsDeclaration']);

function parseForESLint(code, options) {
  const result = tsParser.parseForESLint(code, options);
  result.ast.body = result.ast.body.map((node) => (EDGE_NODES.has(node.type) ? asValueEdge(node) : node));
  return result;
}

/** The rule with every import declaration it visits seen as a value import. */
function followTypeImports(rule) {
  return {
    ...rule,
    create(context) {
      const visitors = rule.create(context);
      return Object.fromEntries(
        Object.entries(visitors).map(([selector, visit]) => [selector, EDGE_NODES.has(selector) ? (node) => visit(asValueEdge(node)) : visit]),
      );
    },
  };
}

module.exports = { meta: { name: 'type-import-edges' }, parseForESLint, followTypeImports };
