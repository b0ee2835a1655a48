// libcurl for StoryGate, plus typed wrappers for its variadic calls (curl_easy_setopt,
// curl_easy_getinfo, curl_multi_setopt), which Swift cannot call. Only CurlHTTP/Curl.swift imports this.
#ifndef STORYGATE_CCURL_SHIM_H
#define STORYGATE_CCURL_SHIM_H

#include <curl/curl.h>

#pragma clang assume_nonnull begin

/// The signature of CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION callbacks.
typedef size_t (*storygate_curl_data_callback)(char *_Nullable data, size_t size, size_t count, void *_Nullable context);

// MARK: curl_easy_setopt

static inline CURLcode storygate_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode storygate_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *_Nullable value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode storygate_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode storygate_curl_easy_setopt_data_callback(CURL *handle, CURLoption option, storygate_curl_data_callback _Nullable callback) {
    return curl_easy_setopt(handle, option, callback);
}

// MARK: curl_easy_getinfo

static inline CURLcode storygate_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode storygate_curl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode storygate_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void *_Nullable *_Nonnull value) {
    return curl_easy_getinfo(handle, info, value);
}

// MARK: curl_multi_setopt

static inline CURLMcode storygate_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

// MARK: curl_multi_info_read

/// The `CURLMsg.data.result` of a CURLMSG_DONE message (a union member, awkward to reach from Swift).
static inline CURLcode storygate_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

#pragma clang assume_nonnull end

#endif
