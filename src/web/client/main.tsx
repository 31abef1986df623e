/** The web catalog's client (docs/web.md): header, the view the path names, footer. */
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import './styles.css';
import { ListingView } from './ListingView.js';
import { MerchantView } from './MerchantView.js';
import { Link, useRoute } from './router.js';
import { SearchView } from './SearchView.js';
import { SellersView } from './SellersView.js';

function App() {
  const route = useRoute();
  useEffect(() => {
    // Moving to another view puts the keyboard focus on its heading, as a page load would.
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [route.view]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="site">
        <Link href="/" class="brand">
          Paid API discovery
        </Link>
        <nav aria-label="Main">
          <Link href="/">Search</Link>
          <Link href="/sellers">For sellers</Link>
          <a href="/openapi.json">API</a>
        </nav>
      </header>
      <main id="main">
        {route.view === 'search' && <SearchView params={route.params} />}
        {route.view === 'listing' && <ListingView id={route.id} />}
        {route.view === 'merchant' && <MerchantView payTo={route.payTo} />}
        {route.view === 'sellers' && <SellersView params={route.params} />}
        {route.view === 'missing' && (
          <h1 tabIndex={-1}>
            Page not found. <Link href="/">Search the catalog</Link>
          </h1>
        )}
      </main>
      <footer class="site">
        Agents: discovery over MCP at <code>/mcp</code>. Everything here comes from the public JSON API (<a href="/openapi.json">OpenAPI</a>).
      </footer>
    </>
  );
}

render(<App />, document.getElementById('app')!);
