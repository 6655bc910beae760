// Progressive enhancement: keeps a console page live without reloading it. Every few seconds it fetches
// the same URL and swaps in the new <main>. It skips a round while the tab is hidden or text is selected,
// so reading and copying are not disturbed. Without JavaScript, a <noscript> meta refresh does the job.
// The fetch is same-origin, so the browser sends the console cookie with it.
const status = document.getElementById("live-status");
const seconds = Number(status?.dataset.refreshSeconds) || 5;

const show = (text, offline) => {
  if (!status) return;
  status.textContent = text;
  status.classList.toggle("offline", offline);
};

const refresh = async () => {
  if (document.hidden || String(document.getSelection() ?? "").length > 0) return;
  try {
    const response = await fetch(location.href, { cache: "no-store", headers: { accept: "text/html" } });
    // Signed out (the token file was replaced, or the cookie expired): say so instead of "unreachable".
    if (response.status === 401) return show("signed out · open the link agent-computer-worker --console-url prints", true);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html").querySelector("main");
    const current = document.querySelector("main");
    if (fresh && current) current.replaceWith(document.adoptNode(fresh));
    show(`live · every ${seconds} s`, false);
  } catch {
    show("worker unreachable · retrying", true);
  }
};

setInterval(refresh, seconds * 1000);
