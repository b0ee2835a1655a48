// libcurl for StoryGate, plus typed wrappers for its variadic calls (curl_easy_setopt,
// curl_easy_getinfo, curl_multi_setopt), which Swift cannot call. Only CurlHTTP/Curl.swift imports this.
#ifndef STORYGATE_CCURL_SHIM_H
#define STORYGATE_CCURL_SHIM_H

#include <curl/curl.h>

#endif
