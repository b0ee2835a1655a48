import GatewayConfig
import HTTPTypes
import HummingbirdCore
import IDTokens
import NIOCore
import StoryFunctions

/// The five AI functions the app calls: `POST /functions/v1/<name>`, a verified caller, the function's
/// per-user rate limit, JSON in and out.
enum FunctionRoutes {
    typealias Function = @Sendable (StoryFunctionsService, [UInt8], Caller) async throws(FunctionError) -> [UInt8]

    static func function(_ handler: BuiltinHandler) -> Function? {
        switch handler {
        case .storyGeneration: { service, body, caller throws(FunctionError) in try await service.storyGeneration(body, caller: caller) }
        case .extractScenes: { service, body, caller throws(FunctionError) in try await service.extractScenes(body, caller: caller) }
        case .audioSynthesis: { service, body, caller throws(FunctionError) in try await service.audioSynthesis(body, caller: caller) }
        case .avatarGeneration: { service, body, caller throws(FunctionError) in try await service.avatarGeneration(body, caller: caller) }
        case .sceneIllustration: { service, body, caller throws(FunctionError) in try await service.sceneIllustration(body, caller: caller) }
        case .media, .me, .healthz, .readyz, .metrics, .openapi: nil
        }
    }

    static func handler(_ function: @escaping Function, service: StoryFunctionsService) -> RouteHandler {
        { request, context in
            guard let identity = context.identity else { throw GatewayError.internalError() }
            let caller = Caller(uid: identity.uid, safetyIdentifier: UserHash.safetyIdentifier(identity.uid))
            let body = try await RequestBodyReader.collect(request.body, headers: request.headers, limit: StoryFunctionsService.maximumBodyBytes)
            // If the client goes away, stop the provider calls nobody will receive (and that cost money).
            let json = try await context.cancellingWhenClientLeaves {
                do throws(FunctionError) {
                    return try await function(service, body, caller)
                } catch {
                    throw GatewayError(error)
                }
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
        }
    }
}
