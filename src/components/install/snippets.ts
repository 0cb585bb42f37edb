/**
 * The set-up snippets, with this server as PostHog's host. The HTML one is PostHog's loader
 * snippet as its docs give it, unchanged but for the key and `api_host`: it loads
 * `<api_host>/static/array.js`, which Burrow serves.
 */

const LOADER =
  '!function(t,e){var o,n,p,r;e.__SV||(window.posthog&&window.posthog.__loaded)||(window.posthog=e,e._i=[],e.init=function(i,s,a){function g(t,e){var o=e.split(".");2==o.length&&(t=t[o[0]],e=o[1]),t[e]=function(){t.push([e].concat(Array.prototype.slice.call(arguments,0)))}}(p=t.createElement("script")).type="text/javascript",p.crossOrigin="anonymous",p.async=!0,p.src=s.api_host.replace(".i.posthog.com","-assets.i.posthog.com")+"/static/array.js",(r=t.getElementsByTagName("script")[0]).parentNode.insertBefore(p,r);var u=e;for(void 0!==a?u=e[a]=[]:a="posthog",u.people=u.people||[],u.toString=function(t){var e="posthog";return"posthog"!==a&&(e+="."+a),t||(e+=" (stub)"),e},u.people.toString=function(){return u.toString(1)+".people (stub)"},o="init capture register register_once register_for_session unregister unregister_for_session getFeatureFlag getFeatureFlagPayload isFeatureEnabled reloadFeatureFlags updateEarlyAccessFeatureEnrollment getEarlyAccessFeatures on onFeatureFlags onSurveysLoaded onSessionId getSurveys getActiveMatchingSurveys renderSurvey canRenderSurvey canRenderSurveyAsync identify setPersonProperties group resetGroups setPersonPropertiesForFlags resetPersonPropertiesForFlags setGroupPropertiesForFlags resetGroupPropertiesForFlags reset get_distinct_id getGroups get_session_id get_session_replay_url alias set_config startSessionRecording stopSessionRecording sessionRecordingStarted captureException loadToolbar get_property getSessionProperty createPersonProfile opt_in_capturing opt_out_capturing has_opted_in_capturing has_opted_out_capturing clear_opt_in_out_capturing debug".split(" "),n=0;n<o.length;n++)g(u,o[n]);e._i.push([i,s,a])},e.__SV=1)}(document,window.posthog||[]);';

/** A JavaScript string literal of `text` in single quotes, as PostHog's snippets write them. */
function quoted(text: string): string {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/</g, "\\x3c")}'`;
}

export function htmlSnippet(key: string, host: string): string {
  return `<script>
    ${LOADER}
    posthog.init(${quoted(key)}, {
        api_host: ${quoted(host)},
        person_profiles: 'identified_only', // or 'always' to create profiles for anonymous users as well
    })
</script>`;
}

export function posthogJsSnippet(key: string, host: string): string {
  return `// npm install posthog-js
import posthog from 'posthog-js'

posthog.init(${quoted(key)}, {
    api_host: ${quoted(host)},
    person_profiles: 'identified_only',
})`;
}

export function posthogNodeSnippet(key: string, host: string): string {
  return `// npm install posthog-node
import { PostHog } from 'posthog-node'

const client = new PostHog(${quoted(key)}, { host: ${quoted(host)} })

client.capture({ distinctId: 'user-123', event: 'signed up' })
await client.shutdown()`;
}
