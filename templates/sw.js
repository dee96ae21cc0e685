// Time Auction service worker, build {{ build }}.
// Caches the app shell so the site opens offline, and shows /offline when a
// page cannot load. Room URLs are live: the SSE stream (/r/<CODE>/events) and
// the hold socket (/r/<CODE>/hold) are never touched, and no /r/ URL is ever
// answered from the cache.
//
// Pages come from navigation preload: the browser requests each page itself,
// with the navigation's own headers, while the worker starts, and the worker
// answers with that response. It never fetches a page again with fetch(req):
// that copy would reach the server as the worker's own fetch (Sec-Fetch-Mode
// same-origin, Sec-Fetch-Dest empty), and a link followed from another site
// (an invite in a chat app) would then look like another site's fetch, which
// the server refuses (403). Where navigation preload is missing, the worker
// leaves pages to the browser and the network (no offline page there).
'use strict';
// The cache is per build and language: the shell's pages are cached in the device's language.
const CACHE = 'ta-{{ build }}-{{ LOCALE }}';
const SHELL = {{ shell|safe }};
const OFFLINE = '/offline';
const PRELOAD = !!self.registration.navigationPreload;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  // Preload is on before the worker takes any page, so every page it takes has one.
  event.waitUntil((PRELOAD ? self.registration.navigationPreload.enable() : Promise.resolve())
    .then(() => caches.keys())
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith('ta-') && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

function offline() {
  return caches.match(OFFLINE).then((hit) => hit || new Response({{ _("Offline")|tojson }}, { status: 503, headers: { 'Content-Type': 'text/plain; charset=utf-8' } }));
}

// A page: the browser's own request for it (the preload), as the server answered it.
// When the network fails: /offline for a room, the shell's copy of any other page.
async function page(event, url) {
  let response;
  try {
    // A page the preload did not cover (none was on for this navigation, which the
    // enable in activate should rule out): fetched here, as before preload.
    response = (await event.preloadResponse) || await fetch(event.request);
  } catch (e) {
    if (url.pathname.startsWith('/r/')) return offline();
    return (await caches.match(url.pathname)) || offline();
  }
  return response;
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.mode === 'navigate') {
    // Fresh pages when online (forms carry fresh tokens). Without navigation preload
    // the page goes to the network untouched, with the browser's own headers.
    if (PRELOAD) event.respondWith(page(event, url));
    return;
  }
  if (url.pathname.startsWith('/r/')) return;   // live: streams and state, never cached
  if (url.pathname.startsWith('/static/')) {
    // Versioned URLs never change content, so the cache may answer first.
    event.respondWith(caches.match(req).then((hit) => hit || fetch(req)));
  }
});
