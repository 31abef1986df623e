/**
 * The HTML shell of the web catalog (docs/web.md). The client script renders everything from the
 * public JSON API; the shell only names the page, loads the built assets and says what to do when
 * scripts are off. Nothing in it comes from a request, so it is one constant string.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Paid API discovery</title>
<meta name="description" content="Search paid HTTP APIs and MCP tools (x402): prices, activity and how to call them.">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/app.css">
<script type="module" src="/assets/app.js"></script>
</head>
<body>
<div id="app">
<noscript><p>This page needs JavaScript. The catalog is also a JSON API: <a href="/openapi.json">/openapi.json</a> describes it.</p></noscript>
</div>
</body>
</html>
`;

/**
 * Scripts, styles and API calls from this origin only; listing text from sellers is rendered as
 * text by the client, and this keeps anything that slipped through from running or calling out.
 */
export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};
