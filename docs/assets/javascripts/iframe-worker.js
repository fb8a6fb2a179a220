/* A Web Worker for pages opened from the file system (file://), where browsers refuse to start
 * one ("cannot be accessed from origin 'null'"). The site's search runs in a worker, so without
 * this the search box of a site opened from disk never answers.
 *
 * The worker's script runs instead in a hidden, blank iframe of the page: a blank frame shares
 * the page's origin, and a classic <script> may load from file://. The worker's global
 * postMessage is replaced by one that hands the message to this Worker object's listeners, and
 * messages posted to the worker are dispatched as "message" events on the frame's window, which
 * is where the script's own addEventListener("message", ...) put its handler. Both directions are
 * asynchronous, as a worker's are; messages posted before the script has loaded wait for it.
 *
 * Served over http(s) nothing changes: the browser's own Worker is used. The file's name keeps
 * mkdocs-material's offline plugin from adding its own shim, which it would fetch from the web.
 */
(function () {
  "use strict";
  if (location.protocol !== "file:") {
    return;
  }

  class FrameWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.onerror = null;
      this._waiting = [];
      this._loaded = false;
      this._frame = document.createElement("iframe");
      this._frame.hidden = true;
      this._frame.setAttribute("aria-hidden", "true");
      this._frame.setAttribute("title", "search worker");
      (document.body || document.documentElement).appendChild(this._frame);
      const scope = this._frame.contentWindow;
      scope.postMessage = (data) => this._fromWorker(data);
      scope.close = () => this.terminate();
      const script = scope.document.createElement("script");
      script.src = new URL(String(url), location.href).href;
      script.onload = () => {
        this._loaded = true;
        for (const data of this._waiting.splice(0)) {
          this.postMessage(data);
        }
      };
      script.onerror = () => this._emit("error", new ErrorEvent("error", {
        message: `cannot load the worker script ${script.src}`,
      }));
      scope.document.head.appendChild(script);
    }

    postMessage(data) {
      if (!this._loaded) {
        this._waiting.push(data);
        return;
      }
      const scope = this._frame.contentWindow;
      setTimeout(() => scope.dispatchEvent(new scope.MessageEvent("message", { data })), 0);
    }

    terminate() {
      this._frame.remove();
    }

    _fromWorker(data) {
      setTimeout(() => this._emit("message", new MessageEvent("message", { data })), 0);
    }

    _emit(type, event) {
      this.dispatchEvent(event);
      const handler = this["on" + type];
      if (typeof handler === "function") {
        handler.call(this, event);
      }
    }
  }

  window.Worker = FrameWorker;
})();
