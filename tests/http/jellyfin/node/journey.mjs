// A member's journey with the published @jellyfin/sdk, driven by test_node_client.py.
// Usage: node [--experimental-websocket] journey.mjs <serverUrl> <name> <password>.
// Prints one JSON object of what it saw. The SDK's own WebSocket (api.subscribe) needs a global
// WebSocket: node 22 has one, node 20 with --experimental-websocket (the test passes it when needed).
import { execFileSync } from 'node:child_process';
import { Jellyfin } from '@jellyfin/sdk';
import { getImageApi } from '@jellyfin/sdk/lib/utils/api/image-api.js';
import { getLibraryApi } from '@jellyfin/sdk/lib/utils/api/library-api.js';
import { getMediaInfoApi } from '@jellyfin/sdk/lib/utils/api/media-info-api.js';
import { getSessionApi } from '@jellyfin/sdk/lib/utils/api/session-api.js';
import { getShowApi } from '@jellyfin/sdk/lib/utils/api/show-api.js';
import { getSystemApi } from '@jellyfin/sdk/lib/utils/api/system-api.js';
import { getUserApi } from '@jellyfin/sdk/lib/utils/api/user-api.js';
import { getUserDataApi } from '@jellyfin/sdk/lib/utils/api/user-data-api.js';
import { getUserViewApi } from '@jellyfin/sdk/lib/utils/api/user-view-api.js';
import { OutboundWebSocketMessageType } from '@jellyfin/sdk/lib/websocket/types.js';

const STOP_TIMEOUT_MS = 60_000;  // the test's administrator stops the session once it is stoppable
const [serverUrl, name, password] = process.argv.slice(2);
const jellyfin = new Jellyfin({
  clientInfo: { name: 'Reelhouse SDK test', version: '1.0.0' },
  deviceInfo: { name: 'Node test device', id: 'node-device-1' },
});
const api = jellyfin.createApi(serverUrl);
const seen = {};

const info = (await getSystemApi(api).getPublicSystemInfo()).data;
seen.version = info.Version;
const auth = (await api.authenticateUserByName(name, password)).data;
seen.tokenKept = api.accessToken === auth.AccessToken;  // the SDK keeps the token it was given
seen.me = (await getUserApi(api).getCurrentUser()).data.Name;

const views = (await getUserViewApi(api).getUserViews()).data.Items;
seen.views = views.map((v) => v.Name).sort();
const shows = views.find((v) => v.CollectionType === 'tvshows');
const library = getLibraryApi(api);
const series = (await library.getItems({ parentId: shows.Id, includeItemTypes: ['Series'] })).data.Items[0];
seen.series = series.Name;
const seasons = (await getShowApi(api).getSeasons({ seriesId: series.Id })).data.Items;
const episodes = (await getShowApi(api).getEpisodes({ seriesId: series.Id, seasonId: seasons[0].Id })).data.Items;
seen.episodes = episodes.map((e) => [e.ParentIndexNumber, e.IndexNumber]);

// As a browser client puts it in an <img> tag: the SDK's URL with the item's tag, no token, no header.
const imageUrl = getImageApi(api).getItemImageUrl(series, 'Primary', { maxWidth: 120 });
const image = await fetch(imageUrl);
seen.imageUrlHasToken = imageUrl.includes(api.accessToken);
seen.imageStatus = image.status;
seen.imageType = image.headers.get('content-type');

const resume = (await library.getResumeItems({})).data.Items;
seen.resume = resume.map((r) => [r.Id, r.UserData.PlaybackPositionTicks]);
const [first, second] = episodes;
const playback = (await getMediaInfoApi(api).getPostedPlaybackInfo({ itemId: first.Id, playbackInfoDto: {} })).data;
const source = playback.MediaSources[0];
seen.directPlay = source.SupportsDirectPlay;

// The stream as a player gets it: the SDK's URL (token as ApiKey), probed and seeked by ffprobe/ffmpeg.
const streamUrl = api.getUri(`/Videos/${first.Id}/stream`, { static: true, mediaSourceId: source.Id, ApiKey: api.accessToken });
const probed = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'json', streamUrl],
  { encoding: 'utf8', timeout: 60_000 }));
seen.streamDuration = Number(probed.format.duration);
execFileSync('ffmpeg', ['-v', 'error', '-ss', String(seen.streamDuration / 2), '-i', streamUrl, '-frames:v', '1', '-f', 'null', '-'],
  { timeout: 60_000 });  // throws (the journey fails) when the seek does
seen.seeked = true;
const ranged = await fetch(streamUrl, { headers: { Range: 'bytes=0-99' } });
seen.rangeStatus = ranged.status;
seen.rangeBytes = (await ranged.arrayBuffer()).byteLength;

// Finish the episode the other client stopped half-way: play on from there to the end.
const sessions = getSessionApi(api);
const report = { ItemId: first.Id, PlaySessionId: playback.PlaySessionId, MediaSourceId: source.Id };
await sessions.reportPlaybackStart({ playbackStartInfo: { ...report, PositionTicks: 5_000_000 } });
await sessions.reportPlaybackProgress({ playbackProgressInfo: { ...report, PositionTicks: 9_500_000 } });
await sessions.reportPlaybackStopped({ playbackStopInfo: { ...report, PositionTicks: first.RunTimeTicks } });
const after = (await library.getItem({ itemId: first.Id })).data;
seen.playedAfter = after.UserData.Played;
seen.nextUp = (await getShowApi(api).getNextUp({})).data.Items.map((n) => n.Id);

// Play the next one with the SDK's socket open, until the server's administrator stops it.
const stopped = new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('no Playstate Stop on the socket')), STOP_TIMEOUT_MS);
  api.subscribe([OutboundWebSocketMessageType.Playstate], (message) => { clearTimeout(timer); resolve(message); });
});
const next = { ItemId: second.Id, PlaySessionId: `${playback.PlaySessionId}-next` };
await sessions.reportPlaybackStart({ playbackStartInfo: { ...next, PositionTicks: 0 } });
const command = await stopped;
seen.remoteStop = command.Data;
await sessions.reportPlaybackStopped({ playbackStopInfo: { ...next, PositionTicks: 0 } });  // stopped as it began
seen.nextUpAfterStop = (await getShowApi(api).getNextUp({})).data.Items.map((n) => n.Id);
api.webSocket.disconnect();

await getUserDataApi(api).markFavoriteItem({ itemId: series.Id });
seen.favoriteSeries = (await library.getItem({ itemId: series.Id })).data.UserData.IsFavorite;
seen.episodeIds = episodes.map((e) => e.Id);
process.stdout.write(JSON.stringify(seen), () => process.exit(0));
