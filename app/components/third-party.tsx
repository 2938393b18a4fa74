import type { ThirdPartyIds } from "#config/site.ts";

const ID = /^[\w-]{1,64}$/;

/**
 * Analytics and verification tags, each only when its ID is configured. IDs are checked before they go into
 * a script, and the Content-Security-Policy lets exactly these services in (server/http/security.ts).
 */
export function ThirdPartyTags({ ids, nonce }: { ids: ThirdPartyIds; nonce: string }) {
  const ga4 = ids.ga4Id && ID.test(ids.ga4Id) ? ids.ga4Id : undefined;
  const clarity = ids.clarityId && ID.test(ids.clarityId) ? ids.clarityId : undefined;
  return (
    <>
      {ids.adsenseAccount && <meta name="google-adsense-account" content={ids.adsenseAccount} />}
      {ids.googleSiteVerification && <meta name="google-site-verification" content={ids.googleSiteVerification} />}
      {ids.bingSiteVerification && <meta name="msvalidate.01" content={ids.bingSiteVerification} />}
      {ga4 && (
        <>
          <script
            async
            src={`https://www.googletagmanager.com/gtag/js?id=${ga4}`}
            nonce={nonce}
            suppressHydrationWarning
          />
          <script
            nonce={nonce}
            suppressHydrationWarning
            dangerouslySetInnerHTML={{
              __html: `window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());gtag('config','${ga4}');`,
            }}
          />
        </>
      )}
      {clarity && (
        <script
          nonce={nonce}
          suppressHydrationWarning
          dangerouslySetInnerHTML={{
            __html: `(function(c,l,a,r,i,t,y){c[a]=c[a]||function(){(c[a].q=c[a].q||[]).push(arguments)};t=l.createElement(r);t.async=1;t.src="https://www.clarity.ms/tag/"+i;y=l.getElementsByTagName(r)[0];y.parentNode.insertBefore(t,y)})(window,document,"clarity","script","${clarity}");`,
          }}
        />
      )}
    </>
  );
}
