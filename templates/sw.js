// Time Auction service worker, build {{ build }}.
// Caches the app shell so the site opens offline, and shows /offline when a
// page cannot load. Room URLs are live: the SSE stream (/r/<CODE>/events) and
// the hold socket (/r/<CODE>/hold) are never touched, and no /r/ URL is ever
// answered from the cache.
'use strict';
// The cache is per build and language: the shell's pages are cached in the device's language.
const CACHE = 'ta-{{ build }}-{{ LOCALE }}';
const SHELL = {{ shell|safe }};
const OFFLINE = '/offline';

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith('ta-') && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

function offline() {
  return caches.match(OFFLINE).then((hit) => hit || new Response({{ _("Offline")|tojson }}, { status: 503, headers: { 'Content-Type': 'text/plain; charset=utf-8' } }));
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/r/')) {
    if (req.mode === 'navigate' && !/\/(events|hold)$/.test(url.pathname)) {
      event.respondWith(fetch(req).catch(offline));
    }
    return;
  }
  if (url.pathname.startsWith('/static/')) {
    // Versioned URLs never change content, so the cache may answer first.
    event.respondWith(caches.match(req).then((hit) => hit || fetch(req)));
    return;
  }
  if (req.mode === 'navigate') {
    // Fresh pages when online (forms carry fresh tokens); the shell copy when not.
    event.respondWith(fetch(req).catch(() =>
      caches.match(url.pathname).then((hit) => hit || offline())));
  }
});
