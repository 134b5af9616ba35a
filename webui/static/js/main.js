/* mahjong-lens, main.js: The page's entry (an ES module, no build step, nothing fetched from outside): picks the
 * page's script by <body data-page>. The page keeps the hand client-side (what the scan read,
 * plus the player's corrections) and asks the server for the score after every change: the
 * rules live on the server only. */
import { $$ } from "./dom.js";
import { photoPage } from "./page-photo.js";
import { livePage } from "./page-live.js";
import { tablePage } from "./page-table.js";
import { refereePage } from "./page-referee.js";

// no form on these pages is sent by the browser itself: the scripts send what is needed
// (the tournament desk's forms, marked data-native, are plain forms the server answers)
for (const form of $$("form:not([method=dialog]):not([data-native])")) form.addEventListener("submit", (event) => event.preventDefault());

const pages = { photo: photoPage, live: livePage, table: tablePage, referee: refereePage };
const page = pages[document.body.dataset.page];
if (page) page();

