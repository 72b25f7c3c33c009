// The chat screen: renders the party's own view (sent by the server over a websocket) and sends
// moves. Every piece of text from the server is put in the page with textContent, never as HTML.
(function () {
  "use strict";
  var root = document.getElementById("chat");
  var token = root.dataset.token;
  var $ = function (id) { return document.getElementById(id); };
  var state = null, ws = null, deadline = null, typingTimer = null, lastTypingSent = 0, retry = 0;
  var sortKey = null, sortUp = true, privateKey = null;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "class") node.className = attrs[k];
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), attrs[k]);
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  function can(kind) { return state && state.legal.indexOf(kind) >= 0; }
  function money(x) { return "$" + (Math.round(x * 100) / 100).toLocaleString(); }
  function showError(text) { var e = $("error"); e.textContent = text || ""; e.hidden = !text; }

  // ------------------------------------------------------------------ connection
  function connect() {
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(proto + location.host + "/ws/chat/" + encodeURIComponent(token));
    ws.onopen = function () {
      retry = 0; $("connection").hidden = true;
      if (pending) send(pending.frame);  // a move sent as the connection dropped: same id, so made once
    };
    ws.onmessage = function (ev) { receive(JSON.parse(ev.data)); };
    ws.onclose = function () {
      if (state && state.done) return;
      var c = $("connection"); c.hidden = false; c.textContent = "Connection lost; reconnecting…";
      retry += 1; setTimeout(connect, Math.min(1000 * retry, 5000));
    };
  }
  function send(frame) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(frame)); }
  // Each move carries an id of its own: sent again after a lost connection or a 503, the server
  // makes it once and acknowledges the repeat.
  var pending = null;
  function moveId() { return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 10); }
  function move(action) {
    showError("");
    pending = { frame: { type: "move", action: action, move_id: moveId() }, tries: 0 };
    send(pending.frame);
  }
  function moveAnswered(msg) {
    if (!pending || msg.move_id !== pending.frame.move_id) return false;
    if (msg.type === "error" && msg.status === 503 && pending.tries < 5) {
      pending.tries += 1; showError("Sending again…");
      var frame = pending.frame; setTimeout(function () { if (pending && pending.frame === frame) send(frame); }, 1000 * pending.tries);
      return true;
    }
    pending = null;
    if (msg.type === "error") showError(msg.reason); else showError("");
    return true;
  }

  function receive(msg) {
    if (msg.type === "state") {
      var last = msg.events.length ? msg.events[msg.events.length - 1] : null;
      if (!state || msg.events.length > state.events.length && last && last.party !== msg.party) { $("typing").textContent = ""; clearTimeout(typingTimer); }
      state = msg; render();
    }
    else if (msg.type === "typing") {
      $("typing").textContent = "Your partner is typing…";
      clearTimeout(typingTimer); typingTimer = setTimeout(function () { $("typing").textContent = ""; }, 3000);
    } else if (msg.type === "partner") {
      var c = $("connection");
      c.hidden = msg.connected;
      c.textContent = msg.connected ? "" : "Your partner lost their connection. Waiting up to " + Math.round(msg.reconnect_seconds) + " s for them to come back…";
    } else if (msg.type === "ack") { moveAnswered(msg); }
    else if (msg.type === "error") { if (!moveAnswered(msg)) showError(msg.reason); }
  }

  // ------------------------------------------------------------------ rendering
  function render() {
    if (state.family + state.party !== privateKey) { renderPrivate(); privateKey = state.family + state.party; }
    else if (state.family === "mutualfriends") renderFriends();
    renderTranscript();
    renderControls();
    if (state.seconds_left !== null && state.seconds_left !== undefined) deadline = Date.now() + state.seconds_left * 1000;
    else deadline = null;
    tick();
  }

  function dealText(mine, theirs, proposerIsMe) {
    var items = Object.keys(mine || {});
    var a = items.map(function (k) { return mine[k] + " " + k; }).join(", ");
    var b = items.map(function (k) { return theirs[k] + " " + k; }).join(", ");
    return proposerIsMe ? "You proposed: you get " + a + "; your partner gets " + b + "."
                        : "Your partner proposed: they get " + a + "; you get " + b + ".";
  }
  function friendText(item) { return Object.keys(item).map(function (k) { return item[k]; }).join(", "); }
  function eventText(e, own) {
    switch (e.kind) {
      case "message": return e.text;
      case "select": return (own ? "You selected: " : "Your partner selected: ") + friendText(e.item);
      case "offer": return (own ? "You made a final offer of " : "Your partner made a final offer of ") + money(e.price);
      case "accept": return own ? "You accepted the offer." : "Your partner accepted the offer.";
      case "reject": return own ? "You rejected the offer." : "Your partner rejected the offer.";
      case "quit": return own ? "You quit." : "Your partner quit.";
      case "submit-deal": return dealText(e.mine, e.theirs, own);
      case "accept-deal": return own ? "You accepted the deal." : "Your partner accepted the deal.";
      case "reject-deal": return own ? "You rejected the deal." : "Your partner rejected the deal.";
      case "walk-away": return own ? "You walked away." : "Your partner walked away.";
      case "system": return "The dialogue ended (" + e.name.replace(/_/g, " ") + ").";
      default: return e.kind;
    }
  }
  function renderTranscript() {
    var list = $("transcript");
    list.textContent = "";
    state.events.forEach(function (e) {
      var own = e.party !== null && e.party === state.party;
      var cls = e.kind === "system" ? "system" : (own ? "mine" : "theirs");
      if (e.kind !== "message" && e.kind !== "system") cls += " move";
      var label = e.party === null ? "" : (own ? "You" : "Partner");
      list.appendChild(el("li", { class: cls }, [el("span", { class: "who", text: label }), eventText(e, own)]));
    });
    list.scrollTop = list.scrollHeight;
  }

  function renderControls() {
    var done = state.done;
    $("say-input").disabled = done || !can("say");
    $("say-button").disabled = done || !can("say");
    $("say-input").placeholder = can("say") ? "Type a message…" : (done ? "The dialogue is over." : "Wait for your partner…");
    var box = $("actions"); box.textContent = "";
    if (!done) {
      if (state.family === "casino") casinoControls(box);
      else if (state.family === "craigslist") craigslistControls(box);
    }
    var end = $("end");
    if (done) {
      end.hidden = false; end.textContent = "";
      var o = state.outcome || {};
      var lines = [outcomeText(o)];
      if (state.family === "casino" && o.score !== null && o.score !== undefined) lines.push("Your points: " + o.score + ".");
      end.appendChild(el("p", { text: lines.join(" ") }));
      if (state.questionnaire_url) {
        var link = el("a", { class: "button", href: state.questionnaire_url, id: "to-questionnaire", text: "Continue to the questionnaire" });
        end.appendChild(link); link.focus();
      }
      $("clock").textContent = "";
    } else end.hidden = true;
  }
  function outcomeText(o) {
    var reason = (o.reason || state.end_reason || "").replace(/_/g, " ");
    if (reason === "success") return "Done: you both found the mutual friend!";
    if (o.agreed === true) return "Done: you reached an agreement" + (o.deal && o.deal.price !== undefined ? " at " + money(o.deal.price) : "") + ".";
    if (reason === "success") return "Done: you both found the mutual friend!";
    if (reason === "completed") return "The conversation is complete. Thank you!";
    if (reason === "disconnect") return "Your partner left the conversation, so it has ended.";
    return "The dialogue has ended (" + (reason || "over") + ").";
  }

  // ------------------------------------------------------------------ private views
  function renderPrivate() {
    var box = $("private"); box.textContent = "";
    var p = state.private, pub = state.public;
    if (state.family === "casino") {
      box.appendChild(el("p", { text: "You and another camper are going camping. Split 3 packages each of food, water and firewood. High priority items are worth " + pub.points.High + " points each, medium " + pub.points.Medium + ", low " + pub.points.Low + ". Walking away gives each of you " + pub.walk_away_points + " points." }));
      var rows = ["High", "Medium", "Low"].map(function (level) {
        var issue = p.value2issue[level];
        return el("tr", {}, [el("th", { scope: "row", text: issue }), el("td", { text: level }), el("td", { text: p.reasons[issue] || "" })]);
      });
      box.appendChild(el("table", {}, [el("caption", { class: "visually-hidden", text: "Your priorities" }), el("thead", {}, [el("tr", {}, [el("th", { text: "Item" }), el("th", { text: "Your priority" }), el("th", { text: "Your reason" })])]), el("tbody", {}, rows)]));
    } else if (state.family === "craigslist") {
      var item = p.item || {};
      box.appendChild(el("p", {}, [el("strong", { text: "You are the " + p.role + "." }), " " + (p.role === "buyer" ? "Buy this item for as little as you can. " : "Sell this item for as much as you can. ") + "Your target price is " + money(p.target) + "."]));
      box.appendChild(el("h3", { text: item.title || pub.title }));
      box.appendChild(el("p", { text: "Listed at " + money(pub.listing_price) + " · " + (pub.category || "") }));
      (item.description || []).forEach(function (line) { box.appendChild(el("p", { class: "meta", text: line })); });
      box.appendChild(el("p", { class: "meta", text: "Chat to agree on a price. Then one of you makes a final offer, and the other accepts or rejects it." }));
    } else if (state.family === "mutualfriends") {
      box.appendChild(el("p", { text: "You and your partner each have a list of friends. Exactly one friend is on both lists. Chat to find them, then press Select on that row." }));
      box.appendChild(el("div", { id: "friends" }));
      box.appendChild(el("ul", { id: "feedback", class: "error", "aria-live": "polite" }));
      renderFriends();
    } else {
      if (pub.setting === "ed" && p.emotion) {
        box.appendChild(el("p", { text: "Tell your partner about something that happened to you, and how you feel." }));
        box.appendChild(el("p", {}, [el("strong", { text: "Feeling: " }), p.emotion]));
        box.appendChild(el("p", {}, [el("strong", { text: "What happened: " }), p.episode]));
      } else if (pub.topic) {
        box.appendChild(el("p", {}, [el("strong", { text: "Topic: " }), pub.topic]));
        box.appendChild(el("p", { text: "Chat about this topic with your partner." }));
      } else {
        box.appendChild(el("p", { text: "Listen to your partner and respond with care." }));
      }
      if (p.style) box.appendChild(el("p", { class: "meta", text: "Your style: " + p.style.replace(/_/g, " ") }));
    }
  }

  function renderFriends() {
    var wrap = $("friends"); if (!wrap) return;
    var items = state.items || [];
    var cols = items.length ? Object.keys(items[0]) : [];
    var selected = state.events.filter(function (e) { return e.kind === "select" && e.party === state.party; }).map(function (e) { return JSON.stringify(e.item); });
    var rows = items.map(function (item, i) { return { item: item, i: i }; });
    if (sortKey) rows.sort(function (a, b) { var x = String(a.item[sortKey]), y = String(b.item[sortKey]); return (x < y ? -1 : x > y ? 1 : 0) * (sortUp ? 1 : -1); });
    var head = el("tr", {}, cols.map(function (c) {
      var label = c + (sortKey === c ? (sortUp ? " ▲" : " ▼") : "");
      return el("th", { scope: "col", "aria-sort": sortKey === c ? (sortUp ? "ascending" : "descending") : "none" }, [el("button", { type: "button", text: label, onclick: function () { if (sortKey === c) sortUp = !sortUp; else { sortKey = c; sortUp = true; } renderFriends(); } })]);
    }).concat([el("th", { scope: "col", text: "" })]));
    var body = rows.map(function (r) {
      var picked = selected.indexOf(JSON.stringify(r.item)) >= 0;
      var b = el("button", { type: "button", class: "secondary select-friend", "data-row": String(r.i), "aria-label": "Select " + friendText(r.item), text: "Select", onclick: function () { move({ kind: "select", item: r.item }); } });
      if (state.done || !can("select")) b.disabled = true;
      return el("tr", { class: picked ? "picked" : "" }, cols.map(function (c) { return el("td", { text: String(r.item[c]) }); }).concat([el("td", {}, [b])]));
    });
    wrap.textContent = "";
    wrap.appendChild(el("div", { class: "table-wrap" }, [el("table", {}, [el("caption", { class: "visually-hidden", text: "Your friends" }), el("thead", {}, [head]), el("tbody", {}, body)])]));
    var fb = $("feedback"); if (fb) { fb.textContent = ""; (state.feedback || []).forEach(function (f) { fb.appendChild(el("li", { text: f })); }); }
  }

  // ------------------------------------------------------------------ task moves
  function casinoControls(box) {
    var issues = state.public.issues, total = state.public.packages;
    var pending = null;
    for (var i = state.events.length - 1; i >= 0; i--) {
      var e = state.events[i];
      if (e.kind === "submit-deal") { pending = e; break; }
      if (e.kind === "reject-deal" || e.kind === "accept-deal") break;
    }
    if (can("accept-deal")) {
      var fs = el("fieldset", {}, [el("legend", { text: pending ? "Your partner proposes: you get " + issues.map(function (k) { return pending.theirs[k] + " " + k; }).join(", ") + "." : "Your partner proposed a deal." })]);
      fs.appendChild(el("div", { class: "row" }, [
        el("button", { type: "button", id: "accept-deal", text: "Accept deal", onclick: function () { move({ kind: "accept-deal" }); } }),
        el("button", { type: "button", id: "reject-deal", class: "secondary", text: "Reject deal", onclick: function () { move({ kind: "reject-deal" }); } })
      ]));
      box.appendChild(fs);
    }
    if (can("submit-deal")) {
      var form = el("form", { id: "deal-form" });
      var fs2 = el("fieldset", {}, [el("legend", { text: "Propose a deal (how many of each you get)" })]);
      var grid = el("div", { class: "deal-grid" }, [el("span", { text: "Item" }), el("span", { text: "You get" }), el("span", { text: "Partner gets" })]);
      var inputs = {};
      issues.forEach(function (issue) {
        var id = "deal-" + issue.toLowerCase();
        var select = el("select", { id: id, name: issue });
        for (var n = 0; n <= total[issue]; n++) select.appendChild(el("option", { value: String(n), text: String(n) }));
        var theirs = el("output", { for: id, id: id + "-theirs", text: String(total[issue]) });
        select.addEventListener("change", function () { theirs.textContent = String(total[issue] - Number(select.value)); });
        inputs[issue] = select;
        grid.appendChild(el("label", { for: id, text: issue })); grid.appendChild(select); grid.appendChild(theirs);
      });
      fs2.appendChild(grid);
      fs2.appendChild(el("button", { type: "submit", id: "submit-deal", text: "Submit deal" }));
      form.appendChild(fs2);
      form.addEventListener("submit", function (ev) {
        ev.preventDefault();
        var mine = {}, theirs = {};
        issues.forEach(function (issue) { mine[issue] = Number(inputs[issue].value); theirs[issue] = total[issue] - mine[issue]; });
        move({ kind: "submit-deal", mine: mine, theirs: theirs });
      });
      box.appendChild(form);
    } else if (pending && pending.party === state.party) {
      box.appendChild(el("p", { class: "notice", text: "Waiting for your partner to accept or reject your deal…" }));
    }
    if (can("walk-away")) box.appendChild(el("div", { class: "row" }, [el("button", { type: "button", class: "danger", id: "walk-away", text: "Walk away (" + state.public.walk_away_points + " points each)", onclick: function () { if (confirm("Walk away without a deal?")) move({ kind: "walk-away" }); } })]));
  }

  function craigslistControls(box) {
    if (can("accept")) {
      var offer = null;
      for (var i = state.events.length - 1; i >= 0; i--) if (state.events[i].kind === "offer") { offer = state.events[i]; break; }
      box.appendChild(el("fieldset", {}, [el("legend", { text: "Your partner's final offer" + (offer ? ": " + money(offer.price) : "") }), el("div", { class: "row" }, [
        el("button", { type: "button", id: "accept-offer", text: "Accept", onclick: function () { move({ kind: "accept" }); } }),
        el("button", { type: "button", id: "reject-offer", class: "secondary", text: "Reject", onclick: function () { move({ kind: "reject" }); } })
      ])]));
    }
    if (can("offer")) {
      var input = el("input", { id: "offer-price", type: "number", min: "1", step: "1", inputmode: "decimal", required: "required" });
      var form = el("form", { id: "offer-form", class: "row" }, [el("label", { for: "offer-price", text: "Final offer ($)" }), input, el("button", { type: "submit", id: "make-offer", text: "Make final offer" })]);
      form.addEventListener("submit", function (ev) { ev.preventDefault(); var price = Number(input.value); if (!(price > 0)) { showError("Enter a price above 0."); return; } move({ kind: "offer", price: price }); });
      box.appendChild(form);
    } else if (!can("accept") && !state.done) {
      var mineOpen = state.legal.length && state.legal.indexOf("offer") < 0 && state.legal.indexOf("quit") < 0;
      if (mineOpen) box.appendChild(el("p", { class: "notice", text: "Waiting for your partner to accept or reject your offer…" }));
    }
    if (can("quit")) box.appendChild(el("div", { class: "row" }, [el("button", { type: "button", class: "danger", id: "quit", text: "Quit without a deal", onclick: function () { if (confirm("Quit without a deal?")) move({ kind: "quit" }); } })]));
  }

  // ------------------------------------------------------------------ clock, typing, sending
  function tick() {
    var clock = $("clock");
    if (!deadline || !state || state.done) { clock.textContent = ""; return; }
    var s = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    clock.textContent = "Time left " + Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    clock.classList.toggle("low", s < 60);
  }
  setInterval(tick, 1000);

  $("say-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var input = $("say-input"), text = input.value.trim();
    if (!text) return;
    if (state && text.length > state.max_message_chars) { showError("Please keep messages under " + state.max_message_chars + " characters."); return; }
    move({ kind: "say", text: text });
    input.value = "";
  });
  $("say-input").addEventListener("input", function () {
    var now = Date.now();
    if (now - lastTypingSent > 2000) { lastTypingSent = now; send({ type: "typing" }); }
  });
  connect();
})();
