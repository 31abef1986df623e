/**
 * Path routing for the three views (the server serves the page at each: src/http/routes/web.ts,
 * PATHS.webPages in src/http/paths.ts). Links are real links (open in a new tab, keyboard, copy);
 * a plain click navigates without reloading.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { view: 'search'; params: URLSearchParams }
  | { view: 'listing'; id: string }
  | { view: 'merchant'; payTo: string }
  | { view: 'sellers'; params: URLSearchParams }
  | { view: 'missing' };

export function parseRoute(pathname: string, search: string): Route {
  const params = new URLSearchParams(search);
  if (pathname === '/') return { view: 'search', params };
  if (pathname === '/sellers') return { view: 'sellers', params };
  const listing = /^\/listings\/([^/]+)$/.exec(pathname);
  if (listing) return { view: 'listing', id: decodeURIComponent(listing[1]!) };
  const merchant = /^\/merchants\/([^/]+)$/.exec(pathname);
  if (merchant) return { view: 'merchant', payTo: decodeURIComponent(merchant[1]!) };
  return { view: 'missing' };
}

const CHANGE = 'locationchange';

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  dispatchEvent(new Event(CHANGE));
}

export function useRoute(): Route {
  const read = () => parseRoute(location.pathname, location.search);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    addEventListener('popstate', update);
    addEventListener(CHANGE, update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener(CHANGE, update);
    };
  }, []);
  return route;
}

export function Link(props: { href: string; class?: string; children: ComponentChildren }) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.href);
    scrollTo(0, 0);
  };
  return (
    <a href={props.href} class={props.class} onClick={onClick}>
      {props.children}
    </a>
  );
}
