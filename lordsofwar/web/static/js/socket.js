/* The game's live channel (GET /api/games/{id}/ws, docs/web.md): a WebSocket that reconnects by
 * itself (backoff from 0.5 s up to 15 s, at once when the tab comes back or the network returns)
 * and pings every 25 s; a connection with no answer 10 s after a ping is closed and reopened.
 * It only moves messages: what they mean is the page's business (game.js). */

/** @typedef {'connecting' | 'reconnecting' | 'ok'} ConnState */
/** @typedef {{type: string, [k: string]: any}} Message */

export class GameSocket {
  /**
   * @param {string} path the channel's path ("/api/games/7/ws"), on this page's host
   * @param {{onMessage: (msg: Message) => void, onState: (state: ConnState) => void}} handlers
   *   onMessage: each message (parsed JSON); onState: the connection's state as it changes
   */
  constructor(path, handlers) {
    this.url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + path;
    this.handlers = handlers;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.backoff = 500;
    this.everOpened = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.reconnectTimer = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pingTimer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.pongTimer = undefined;
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible' && (!this.ws || this.ws.readyState === WebSocket.CLOSED)) { this.backoff = 500; this.connect(); }
    });
    window.addEventListener('online', () => { this.backoff = 500; this.connect(); });
  }

  /**
   * Send `obj` as JSON if the channel is open.
   * @param {Message} obj
   * @returns {boolean} whether it went (else the caller uses the HTTP API)
   */
  send(obj) {
    const ws = this.ws;
    if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(obj)); return true; }
    return false;
  }

  /** Open the channel (nothing to do while it is open or opening). */
  connect() {
    clearTimeout(this.reconnectTimer);
    if (this.ws && (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)) return;
    let sock;
    try { sock = new WebSocket(this.url); } catch (e) { this.scheduleReconnect(); return; }
    this.ws = sock;
    sock.onopen = () => {
      this.everOpened = true; this.backoff = 500; this.handlers.onState('ok');
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.ping(), 25000);
    };
    sock.onmessage = (e) => {
      let msg; try { msg = JSON.parse(e.data); } catch (err) { return; }
      clearTimeout(this.pongTimer);
      if (msg && typeof msg === 'object') this.handlers.onMessage(msg);
    };
    sock.onclose = () => {
      if (this.ws !== sock) return;
      clearInterval(this.pingTimer); clearTimeout(this.pongTimer);
      this.handlers.onState(this.everOpened ? 'reconnecting' : 'connecting');
      this.scheduleReconnect();
    };
    sock.onerror = () => { /* onclose follows */ };
  }

  /** @private */
  ping() {
    if (!this.send({ type: 'ping' })) return;
    clearTimeout(this.pongTimer);
    this.pongTimer = setTimeout(() => { try { if (this.ws) this.ws.close(); } catch (e) { /* ignore */ } }, 10000);
  }

  /** @private */
  scheduleReconnect() {
    clearTimeout(this.reconnectTimer);
    const delay = Math.min(15000, this.backoff) * (0.8 + Math.random() * 0.4);
    this.backoff = Math.min(15000, this.backoff * 2);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }
}
