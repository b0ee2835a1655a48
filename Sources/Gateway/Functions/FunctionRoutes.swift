import GatewayConfig
import HTTPTypes
import HummingbirdCore
import IDTokens
import NIOCore
import StoryFunctions

/// The five AI functions the app calls (`POST /functions/v1/<name>`, JSON in and out), each as a call of
/// ``StoryFunctionsService`` that ``FunctionCalls`` makes.
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
}
