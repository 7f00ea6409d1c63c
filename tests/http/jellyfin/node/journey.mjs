// A member's journey with the published @jellyfin/sdk, driven by test_node_client.py.
// Usage: node journey.mjs <serverUrl> <name> <password>. Prints one JSON object of what it saw.
import { Jellyfin } from '@jellyfin/sdk';
import { getLibraryApi } from '@jellyfin/sdk/lib/utils/api/library-api.js';
import { getMediaInfoApi } from '@jellyfin/sdk/lib/utils/api/media-info-api.js';
import { getSessionApi } from '@jellyfin/sdk/lib/utils/api/session-api.js';
import { getShowApi } from '@jellyfin/sdk/lib/utils/api/show-api.js';
import { getSystemApi } from '@jellyfin/sdk/lib/utils/api/system-api.js';
import { getUserApi } from '@jellyfin/sdk/lib/utils/api/user-api.js';
import { getUserDataApi } from '@jellyfin/sdk/lib/utils/api/user-data-api.js';
import { getUserViewApi } from '@jellyfin/sdk/lib/utils/api/user-view-api.js';

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

const image = await api.axiosInstance.get(api.getUri(`/Items/${series.Id}/Images/Primary`, { maxWidth: 120 }),
  { responseType: 'arraybuffer', headers: { Authorization: api.authorizationHeader } });
seen.imageType = image.headers['content-type'];

const resume = (await library.getResumeItems({})).data.Items;
seen.resume = resume.map((r) => [r.Id, r.UserData.PlaybackPositionTicks]);
const first = episodes[0];
const playback = (await getMediaInfoApi(api).getPostedPlaybackInfo({ itemId: first.Id, playbackInfoDto: {} })).data;
seen.directPlay = playback.MediaSources[0].SupportsDirectPlay;
const streamUrl = api.getUri(`/Videos/${first.Id}/stream`, { static: true, ApiKey: api.accessToken });
const ranged = await fetch(streamUrl, { headers: { Range: 'bytes=0-99' } });
seen.rangeStatus = ranged.status;
seen.rangeBytes = (await ranged.arrayBuffer()).byteLength;

// Finish the episode the other client stopped half-way: play on from there to the end.
const sessions = getSessionApi(api);
const report = { ItemId: first.Id, PlaySessionId: playback.PlaySessionId, MediaSourceId: playback.MediaSources[0].Id };
await sessions.reportPlaybackStart({ playbackStartInfo: { ...report, PositionTicks: 5_000_000 } });
await sessions.reportPlaybackProgress({ playbackProgressInfo: { ...report, PositionTicks: 9_500_000 } });
await sessions.reportPlaybackStopped({ playbackStopInfo: { ...report, PositionTicks: first.RunTimeTicks } });
const after = (await library.getItem({ itemId: first.Id })).data;
seen.playedAfter = after.UserData.Played;
seen.nextUp = (await getShowApi(api).getNextUp({})).data.Items.map((n) => n.Id);
await getUserDataApi(api).markFavoriteItem({ itemId: series.Id });
seen.favoriteSeries = (await library.getItem({ itemId: series.Id })).data.UserData.IsFavorite;
seen.episodeIds = episodes.map((e) => e.Id);
process.stdout.write(JSON.stringify(seen));
