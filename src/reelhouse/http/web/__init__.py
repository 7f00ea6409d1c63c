"""The web console at /web/: members sign in with a cookie and watch in the browser (docs/web.md)."""
